import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptsOf } from '../../../src/hooks/import/script-paths.js';

function tree(files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'hookbox-import-'));
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '#!/bin/sh\n');
  }
  return root;
}

describe('the scripts a hook command names', () => {
  const root = tree([
    'project/.claude/hooks/a.sh',
    'plugin/scripts/b.js',
    'home/.claude/c.py',
    'project/rel.py',
  ]);
  const roots = {
    projectDir: join(root, 'project'),
    pluginRoot: join(root, 'plugin'),
    fileDir: join(root, 'project/.claude'),
    home: join(root, 'home'),
  };
  it('resolves $CLAUDE_PROJECT_DIR (quoted or not), ${CLAUDE_PLUGIN_ROOT}, ~ and relative paths', () => {
    const command = `"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh && node \${CLAUDE_PLUGIN_ROOT}/scripts/b.js; python3 ~/.claude/c.py; python3 rel.py`;
    const found = scriptsOf(command, roots);
    expect(found.map((s) => s.file)).toEqual([
      join(root, 'project/.claude/hooks/a.sh'),
      join(root, 'plugin/scripts/b.js'),
      join(root, 'home/.claude/c.py'),
      join(root, 'project/rel.py'),
    ]);
    // The positions cover the whole word, quotes included, so the command can be rewritten.
    expect(command.slice(found[0]!.start, found[0]!.end)).toBe(
      '"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh',
    );
  });
  it('leaves programs, options and jq filters alone, and reports scripts it cannot find', () => {
    const found = scriptsOf(
      `jq -r '.tool_input.file_path // empty' | /usr/bin/env python3 missing.py`,
      roots,
    );
    expect(found).toEqual([
      {
        written: 'missing.py',
        start: expect.any(Number) as number,
        end: expect.any(Number) as number,
      },
    ]);
    expect(scriptsOf('$UNKNOWN_DIR/x.sh', roots)[0]!.file).toBeUndefined();
  });
});
