// A hard link in a sources folder is another name for a file that may live anywhere on the host
// (a file the folder's owner linked in): it is refused like a symlink, by `hookbox call --sources`
// and by a fixture's `sources.dir`, before anything is made.
import { linkSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ownResources, sourcesDir, type PrintedOutcome } from './cli-helpers.js';

function folderWithHardLink(): string {
  const outside = mkdtempSync(join(tmpdir(), 'hookbox-host-secret-'));
  writeFileSync(join(outside, 'secret.txt'), 'host secret\n');
  const dir = sourcesDir({ 'workspace/notes.txt': 'plain\n' });
  mkdirSync(join(dir, 'workspace', 'data'), { recursive: true });
  linkSync(join(outside, 'secret.txt'), join(dir, 'workspace', 'data', 'copy.txt'));
  return dir;
}

describe('hard-linked sources', () => {
  it('hookbox call --sources refuses a file with more than one link (exit 2, names it)', async () => {
    const before = await ownResources();
    const { code, stderr } = await cli(
      'call',
      '--sources',
      folderWithHardLink(),
      '--tool',
      'code_execution',
      '--args',
      '{"code": "cat data/copy.txt"}',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/workspace\/data\/copy\.txt has 2 hard links/);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(await ownResources()).toEqual(before);
  });

  it('a fixture whose sources.dir holds a hard link is refused too', async () => {
    const dir = folderWithHardLink();
    const file = join(mkdtempSync(join(tmpdir(), 'hookbox-fx-')), 'linked.yaml');
    writeFileSync(
      file,
      `name: linked
sources: {dir: ${JSON.stringify(dir)}}
cases:
  - name: reads the linked file
    call: {name: code_execution, args: {code: "cat /workspace/data/copy.txt"}}
    expect: {blocked: false}
`,
    );
    const { code, stdout, stderr } = await cli('test', file, '--no-containment');
    expect(code, stdout + stderr).not.toBe(0);
    expect(stdout + stderr).toMatch(/copy\.txt has 2 hard links/);
    expect(stdout + stderr).not.toContain('host secret');
  });

  it('a file with one link is read as before', async () => {
    const dir = sourcesDir({ 'workspace/notes.txt': 'plain\n' });
    const { code, stdout } = await cli(
      'call',
      '--sources',
      dir,
      '--tool',
      'code_execution',
      '--args',
      '{"code": "cat notes.txt"}',
      '--json',
    );
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as PrintedOutcome).result?.stdout).toBe('plain\n');
  });
});
