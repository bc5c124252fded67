import { describe, expect, it } from 'vitest';
import { SOURCE_LIMITS } from '../../src/config/limits.js';
import { placeSources } from '../../src/config/sources.js';
import { UserError } from '../../src/errors/index.js';

const src = (target: string, content = 'x') => ({ type: 'inline', target, content });

function refusal(sources: unknown): UserError {
  try {
    placeSources(sources);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error('expected a refusal');
}

describe('placeSources', () => {
  it('places .agents/ and workspace/ targets, with or without a leading slash', () => {
    const placed = placeSources([
      src('.agents/hooks.json'),
      src('/workspace/data/x.json'),
      src('/.agents/hooks-scripts/g.py'),
    ]);
    expect(placed.map((p) => [p.area, p.path, p.absolutePath])).toEqual([
      ['agents', 'hooks.json', '/.agents/hooks.json'],
      ['workspace', 'data/x.json', '/workspace/data/x.json'],
      ['agents', 'hooks-scripts/g.py', '/.agents/hooks-scripts/g.py'],
    ]);
  });

  it('makes a source executable exactly when it starts with #!', () => {
    const [script, data, late] = placeSources([
      src('.agents/a.py', '#!/usr/bin/env python3\n'),
      src('.agents/b', 'x #!'),
      src('.agents/c', ' #!'),
    ]);
    expect([script!.executable, data!.executable, late!.executable]).toEqual([true, false, false]);
  });

  it.each([
    ['etc/passwd', 'must be under ".agents/" or "workspace/"'],
    ['tmp/x', 'must be under'],
    ['workspace/../etc/x', '".." segments'],
    ['.agents/../workspace/x', '".." segments'],
    ['workspace//x', 'empty path segment'],
    ['//workspace/x', 'empty path segment'],
    ['workspace/x/', 'empty path segment'],
    ['workspace/./x', '"." segments'],
    ['workspace', 'names the folder "workspace" itself'],
    ['.agents', 'names the folder ".agents" itself'],
    ['workspace/a\0b', 'NUL'],
    ['workspace/.agents/hooks.json', 'read-only mirror'],
    ['', 'empty path segment'],
  ])('refuses %j, naming the target and the rule', (target, rule) => {
    const error = refusal([src('workspace/ok.txt'), src(target)]);
    expect(error.code).toBe('invalid_sources');
    expect(error.message).toContain(JSON.stringify(target));
    expect(error.message).toContain(rule);
    expect(error.details.field).toBe('sources[1].target');
  });

  it('refuses duplicates, also when they differ only by the leading slash', () => {
    const error = refusal([src('workspace/a'), src('/workspace/a')]);
    expect(error.message).toContain('duplicates sources[0].target');
  });

  it('refuses a target that is a folder prefix of another, in either order', () => {
    expect(refusal([src('workspace/a'), src('workspace/a/b')]).message).toMatch(
      /folder prefix of sources\[1\]/,
    );
    expect(refusal([src('workspace/a/b'), src('workspace/a')]).message).toMatch(
      /sources\[1\]\.target "workspace\/a": is a folder prefix of sources\[0\]/,
    );
    expect(() =>
      placeSources([src('workspace/a'), src('workspace/ab'), src('workspace/a.txt')]),
    ).not.toThrow();
  });

  it('refuses the wrong shape with the field named', () => {
    expect(refusal([{ type: 'gcs', target: 'workspace/a', content: '' }]).message).toMatch(
      /^sources\[0\]\.type/,
    );
    expect(refusal([{ type: 'inline', target: 'workspace/a' }]).message).toMatch(
      /^sources\[0\]\.content/,
    );
    expect(
      refusal([{ type: 'inline', target: 'workspace/a', content: 'x', extra: 1 }]).message,
    ).toContain('extra');
    expect(refusal({}).message).toMatch(/^sources/);
  });

  it('enforces the documented limits', () => {
    const big = 'a'.repeat(SOURCE_LIMITS.maxSourceBytes + 1);
    expect(refusal([src('workspace/big', big)]).message).toMatch(
      /over the limit of 5242880 bytes for one source/,
    );
    const many = Array.from({ length: SOURCE_LIMITS.maxCount + 1 }, (_, i) =>
      src(`workspace/f${i}`),
    );
    expect(refusal(many).message).toMatch(/over the limit of 1000/);
    const fiveMb = 'a'.repeat(SOURCE_LIMITS.maxSourceBytes);
    const total = Array.from({ length: 5 }, (_, i) => src(`workspace/t${i}`, fiveMb));
    expect(refusal(total).message).toMatch(/bytes in all, over the limit/);
  });
});
