// `hookbox test --junit` must write well-formed XML 1.0 whatever tool output and case names hold:
// checked with saxes, a strict XML 1.0 parser (fast-xml-parser accepts U+FFFE and U+FFFF).
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { junitXml } from '../../src/testing/junit.js';
import type { CaseResult } from '../../src/testing/run-fixtures.js';

/** Parses strictly; returns the first error and every text and attribute value seen. */
function parse(xml: string): { error?: string; texts: string[] } {
  const parser = new SaxesParser();
  const texts: string[] = [];
  let error: string | undefined;
  parser.on('error', (e) => (error ??= e.message));
  parser.on('text', (text) => texts.push(text));
  parser.on('opentag', (tag) => texts.push(...Object.values(tag.attributes).map(String)));
  parser.write(xml).close();
  return { ...(error === undefined ? {} : { error }), texts };
}

const result = (name: string, failure: string): CaseResult => ({
  fixture: `fixture ${name}`,
  file: `fixtures/${name}.yaml`,
  name,
  mode: 'gated',
  passed: false,
  failures: [failure, `second: ${failure}`],
  durationMs: 12,
});

describe('JUnit XML holds only characters XML 1.0 allows', () => {
  it('drops U+FFFE, U+FFFF, control characters and lone surrogates, keeps the rest', () => {
    const hostile = 'a\uFFFEb\uFFFFc\u0000d\u001be\uD800f\uDFFFg😀h\uFFFDi<&>"\'\t\n';
    const { error, texts } = parse(junitXml([result(`case ${hostile}`, `stdout: ${hostile}`)]));
    expect(error).toBeUndefined();
    const joined = texts.join('|');
    expect(joined).toContain('stdout: abcdefg😀h\uFFFDi<&>"\'');
    // eslint-disable-next-line no-control-regex -- looking for exactly those characters
    expect(joined).not.toMatch(/[\uFFFE\uFFFF\u0000\u001b]/);
  });

  it('parses for every one of the 65,536 BMP code units and a spread of astral code points', () => {
    let all = '';
    for (let code = 0; code < 0x10000; code++) all += String.fromCharCode(code);
    for (let code = 0x10000; code <= 0x10ffff; code += 0x1001) all += String.fromCodePoint(code);
    // Every code unit, both as one run and cut into pieces (which splits surrogate pairs apart).
    const pieces = all.match(/[\s\S]{1,97}/g)!;
    const xml = junitXml([
      result(all, all),
      ...pieces.slice(0, 200).map((piece, i) => result(`${i}${piece}`, piece)),
    ]);
    expect(parse(xml).error).toBeUndefined();
  });
});
