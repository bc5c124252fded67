// Tool output is untrusted: `hookbox test --junit` must write XML a strict XML 1.0 parser accepts
// even when a real tool call prints U+FFFE, U+FFFF and control characters, and a case is named so.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { cli } from './cli-helpers.js';

describe('hookbox test --junit with hostile tool output', () => {
  it('writes well-formed XML holding the failure, minus what XML cannot hold', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-junit-'));
    const file = join(dir, 'hostile.yaml');
    // printf's octal escapes: U+FFFE (ef bf be), U+FFFF (ef bf bf), ESC, BEL, then plain text.
    writeFileSync(
      file,
      `name: hostile output
sources: {dir: ${JSON.stringify(resolve('examples/security-gate'))}}
cases:
  - name: "prints what XML cannot hold \\uFFFF\\uFFFE"
    call: {name: code_execution, args: {code: "printf 'A\\\\357\\\\277\\\\276B\\\\357\\\\277\\\\277C\\\\033D\\\\007E<&>'"}}
    expect: {stdout: {exact: "something else"}}
`,
    );
    const junit = join(dir, 'junit.xml');
    const { code, stdout } = await cli('test', file, '--junit', junit, '--no-containment');
    expect(code, stdout).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    // The output did reach the report (so the test is about it), minus the characters XML lacks.
    // (The failure message quotes the output as JSON, so ESC and BEL appear as \u escapes.)
    expect(xml).toContain('got &quot;ABC\\u001bD\\u0007E&lt;&amp;&gt;&quot;');
    // eslint-disable-next-line no-control-regex -- looking for exactly those characters
    expect(xml).not.toMatch(/[\uFFFE\uFFFF\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const parser = new SaxesParser();
    let error: string | undefined;
    const names: string[] = [];
    parser.on('error', (e) => (error ??= e.message));
    parser.on('opentag', (tag) => {
      if (tag.name === 'testcase') names.push(String(tag.attributes.name));
    });
    parser.write(xml).close();
    expect(error).toBeUndefined();
    expect(names).toEqual(['prints what XML cannot hold ']);
  });
});
