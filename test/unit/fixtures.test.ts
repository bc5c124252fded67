import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { fixtureJsonSchema } from '../../src/testing/fixture-schema.js';

async function hookboxTest(text: string, name = 'broken.yaml') {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-fixtures-'));
  writeFileSync(join(dir, name), text);
  let stdout = '';
  let stderr = '';
  const code = await main(['test', join(dir, name)], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTty: false,
  });
  return { code, stdout, stderr };
}

const valid = `name: f
cases:
  - name: one
    call: {name: code_execution, args: {code: "true"}}
`;

describe('broken fixtures are refused with exit 2, naming the file, the case and the field', () => {
  it('bad YAML', async () => {
    const { code, stderr } = await hookboxTest('name: f\ncases: [\n  - {');
    expect(code).toBe(2);
    expect(stderr).toMatch(/broken\.yaml: \(file\): not valid YAML/);
  });
  it('an unknown field in a case', async () => {
    const { code, stderr } = await hookboxTest(
      valid.replace('    call:', '    expectt: {}\n    call:'),
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /broken\.yaml: cases\[0\]\.expectt \(case "one"\): unknown key "expectt" \(did you mean "expect"\?\)/,
    );
  });
  it('an unknown field in an expectation', async () => {
    const { code, stderr } = await hookboxTest(
      valid + '    expect: {blocked: true, stdot: {exact: x}}\n',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('cases[0].expect.stdot (case "one")');
  });
  it('an impossible expectation: blocked and an exit code', async () => {
    const { code, stderr } = await hookboxTest(
      valid + '    expect: {blocked: true, exit_code: 0}\n',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /cases\[0\] \(one\)\.expect\.exit_code: impossible: a blocked call does not run/,
    );
  });
  it('an impossible expectation: a path that must exist and be absent', async () => {
    const { code, stderr } = await hookboxTest(
      valid + '    expect: {workspace: {exists: [a], absent: [a]}}\n',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('a must both exist and be absent');
  });
  it('an invalid regular expression', async () => {
    const { code, stderr } = await hookboxTest(valid + '    expect: {stdout: {regex: "("}}\n');
    expect(code).toBe(2);
    expect(stderr).toContain('expect.stdout.regex: not a valid regular expression');
  });
  it('a call the vocabulary does not have', async () => {
    const { code, stderr } = await hookboxTest(
      valid.replace('code_execution, args: {code: "true"}', 'rm_rf, args: {}'),
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/cases\[0\] \(one\)\.call: .*unknown tool "rm_rf"/);
  });
  it('a duplicate case name and a missing field', async () => {
    expect((await hookboxTest(valid + valid.split('cases:\n')[1])).stderr).toContain(
      'duplicate case name "one"',
    );
    expect((await hookboxTest('name: f\ncases:\n  - name: x\n')).stderr).toContain(
      'cases[0].call (case "x")',
    );
  });
  it('a sources.dir that does not exist names the fixture file', async () => {
    const { code, stderr } = await hookboxTest('sources: {dir: ./no-such-folder}\n' + valid);
    expect(code).toBe(2);
    expect(stderr).toMatch(/broken\.yaml: sources\.dir: .*no-such-folder does not exist/);
  });
  it('every problem of a fixture, not only the first', async () => {
    const { code, stderr } = await hookboxTest(
      'sources: {dir: ./no-such-folder}\n' +
        valid +
        '    expect: {blocked: true, exit_code: 0, stdout: {regex: "("}}\n',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/broken\.yaml: 4 problems/);
    expect(stderr).toMatch(/broken\.yaml: cases\[0\] \(one\)\.expect\.exit_code: impossible/);
    expect(stderr).toMatch(/broken\.yaml: cases\[0\] \(one\)\.expect\.stdout\.regex: not a valid/);
    expect(stderr).toMatch(/broken\.yaml: sources\.dir: /);
  });
  it('a gate that is not shipped', async () => {
    const { code, stderr } = await hookboxTest('gate: no-such-gate\n' + valid);
    expect(code).toBe(2);
    expect(stderr).toContain('gate "no-such-gate": no folder');
  });
});

describe('the published JSON Schema', () => {
  it('docs/fixture.schema.json is the one generated from the zod schema', () => {
    const published: unknown = JSON.parse(
      readFileSync(new URL('../../docs/fixture.schema.json', import.meta.url), 'utf8'),
    );
    expect(published).toEqual(fixtureJsonSchema());
  });
});
