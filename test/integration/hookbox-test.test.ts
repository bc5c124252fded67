import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { cli, type JunitReport } from './cli-helpers.js';

const seedGate = resolve('examples/security-gate');

function fixture(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-fx-'));
  const file = join(dir, 'seed.yaml');
  writeFileSync(file, text);
  return { dir, file };
}

const passing = `name: seed-gate
sources: {dir: ${JSON.stringify(seedGate)}}
workspace_files: {"notes/a.txt": "alpha\\n"}
cases:
  - name: blocks rm -rf
    call: {name: code_execution, args: {code: "rm -rf /tmp/forbidden"}}
    expect: {blocked: true, reason: {exact: "Destructive command blocked by security gate."}}
    destructive: true
  - name: echo passes and writes
    call: {name: code_execution, args: {code: "echo hello | tee out.txt; rm notes/a.txt"}}
    expect: {blocked: false, exit_code: 0, stdout: {exact: "hello\\n"}, workspace: {exists: [out.txt], absent: [notes/a.txt], content: {out.txt: {regex: "^hello"}}}}
`;

describe('hookbox test', () => {
  it('runs cases against real containers, checks containment with the gate off, writes valid JUnit', async () => {
    const { dir, file } = fixture(passing);
    const junit = join(dir, 'junit.xml');
    const { code, stdout, stderr } = await cli('test', file, '--junit', junit, '--jobs', '2');
    expect(code).toBe(0);
    expect(stdout).toMatch(/pass\s+seed-gate\s+blocks rm -rf \[gate off\]/);
    expect(stdout).toMatch(/^3 passed, 0 failed \(3 runs of 2 cases in 1 fixture file,/m);
    // Not on a terminal: a line per finished case, so a CI log shows the run is alive.
    expect(stderr).toMatch(/^hookbox test: starting 2 environment\(s\) · \d+s$/m);
    expect(stderr).toMatch(/^\[1\/3\] 0 failed · pass seed-gate › /m);
    expect(stderr).toMatch(/^\[3\/3\] 0 failed · pass seed-gate › .* · \d+s$/m);
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      xml,
    ) as JunitReport;
    expect(parsed.testsuites).toMatchObject({ tests: '3', failures: '0' });
    expect(parsed.testsuites.testsuite.testcase.map((c) => c.name)).toEqual([
      'blocks rm -rf',
      'blocks rm -rf [gate off: contained]',
      'echo passes and writes',
    ]);
  });

  it('exits 1 and spells out each failing expectation, also in JUnit', async () => {
    const { dir, file } = fixture(`name: wrong
sources: {dir: ${JSON.stringify(seedGate)}}
cases:
  - name: expects a block that does not come
    call: {name: code_execution, args: {code: "echo hi; exit 3"}}
    expect: {blocked: true}
  - name: wrong output and workspace
    call: {name: code_execution, args: {code: "echo '<b>&amp;'"}}
    expect: {stdout: {exact: "bye\\n"}, exit_code: 0, workspace: {exists: [missing.txt]}}
`);
    const junit = join(dir, 'junit.xml');
    const { code, stdout } = await cli('test', file, '--junit', junit, '--no-containment');
    expect(code).toBe(1);
    expect(stdout).toContain('✖ blocked: expected true, got false');
    expect(stdout).toContain('✖ stdout: expected exactly "bye\\n", got "<b>&amp;\\n"');
    expect(stdout).toContain('✖ workspace: missing.txt should exist but does not');
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      xml,
    ) as JunitReport;
    expect(parsed.testsuites.failures).toBe('2');
  });

  it('leaves no audit logs unless asked, and applies the retention to older ones', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-home-'));
    const audit = join(home, 'audit');
    mkdirSync(audit);
    // A log of a gone environment, not written for 40 days: past the 30-day retention.
    const old = join(audit, 'env_gone.jsonl');
    writeFileSync(old, '{}\n');
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(old, longAgo, longAgo);
    const before = process.env.HOOKBOX_HOME;
    process.env.HOOKBOX_HOME = home;
    try {
      const { file } = fixture(passing);
      expect((await cli('test', file, '--no-containment')).code).toBe(0);
      expect(existsSync(old)).toBe(false);
      expect(readdirSync(audit)).toEqual([]);
      expect((await cli('test', file, '--no-containment', '--keep-audit-logs')).code).toBe(0);
      expect(readdirSync(audit).filter((name) => name.endsWith('.jsonl'))).toHaveLength(2);
    } finally {
      if (before === undefined) delete process.env.HOOKBOX_HOME;
      else process.env.HOOKBOX_HOME = before;
    }
  });
});
