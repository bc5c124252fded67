import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../src/config/matcher.js';

const matches = (matcher: string | undefined, tool: string) => {
  const compiled = compileMatcher(matcher);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.matcher.matches(tool);
};

describe('matchers: RE2 against the whole tool name', () => {
  it.each([undefined, '*', '', '.*'])('%j matches every tool', (matcher) => {
    for (const tool of ['code_execution', 'read_file', 'x'])
      expect(matches(matcher, tool)).toBe(true);
  });
  it('matches exactly, not partially, and case-sensitively', () => {
    expect(matches('code_execution', 'code_execution')).toBe(true);
    expect(matches('code', 'code_execution')).toBe(false);
    expect(matches('execution', 'code_execution')).toBe(false);
    expect(matches('read_file', 'Read_File')).toBe(false);
  });
  it('supports alternation and wildcards', () => {
    expect(matches('read_file|write_file', 'write_file')).toBe(true);
    expect(matches('read_file|write_file', 'delete_file')).toBe(false);
    expect(matches('.*_file', 'delete_file')).toBe(true);
    expect(matches('.*_file', 'list_files')).toBe(false);
    expect(matches('.*_file', 'replace_file_content')).toBe(false);
  });
  it('refuses invalid RE2 with a hint for globs', () => {
    const glob = compileMatcher('*_file');
    expect(glob.ok).toBe(false);
    expect(!glob.ok && glob.message).toContain('did you mean ".*_file"?');
    expect(compileMatcher('(').ok).toBe(false);
    expect(compileMatcher('a{2,1}').ok).toBe(false);
  });
  it('answers the same when one compiled matcher is asked again, past what it remembers', () => {
    const compiled = compileMatcher('.*_file|code_.*');
    if (!compiled.ok) throw new Error(compiled.message);
    const names = Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? `n${i}_file` : `n${i}`));
    for (let round = 0; round < 3; round++)
      for (const name of [...names, 'code_execution', 'read_file', 'list_files'])
        expect(compiled.matcher.matches(name)).toBe(matches('.*_file|code_.*', name));
    expect(compiled.matcher.matches('n1')).toBe(false);
    expect(compiled.matcher.matches('n0_file')).toBe(true);
  });
  it('is linear-time: a pathological pattern on a long name returns promptly', () => {
    const started = performance.now();
    expect(matches('(a+)+$', 'a'.repeat(5000) + 'b')).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
