import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { cli, type JunitReport } from './cli-helpers.js';

// The shipped gates against their whole corpora (fixtures/), in real containers, with the gate-off
// containment run of every destructive case: what `hookbox test fixtures/` does in CI.
describe('hookbox test fixtures/', () => {
  it('every case passes, every destructive case is contained with the gate off, and the JUnit file is valid', async () => {
    const junit = join(mkdtempSync(join(tmpdir(), 'hookbox-corpus-')), 'junit.xml');
    const started = Date.now();
    const { code, stdout } = await cli('test', 'fixtures', '--junit', junit, '--jobs', '4');
    const failures = stdout
      .split('\n')
      .filter((line) => line.startsWith('FAIL') || line.includes('✖'));
    expect(failures).toEqual([]);
    expect(code).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      xml,
    ) as JunitReport;
    expect(Number(parsed.testsuites.tests)).toBeGreaterThan(600);
    expect(parsed.testsuites.failures).toBe('0');
    process.stderr.write(
      `[corpus] ${parsed.testsuites.tests} runs in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
    );
  }, 1_500_000);
});
