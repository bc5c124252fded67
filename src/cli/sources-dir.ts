import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { InlineSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';

/**
 * Reads a sources folder: each file's path relative to DIR is its target (SPEC §10). A symlink is
 * bad input: following it could send files from outside DIR; so is a file with more than one hard
 * link, which can be such a file under another name.
 */
export function readSourcesDir(dir: string): InlineSource[] {
  let top;
  try {
    top = lstatSync(dir);
  } catch {
    throw new UserError('invalid_argument', `--sources: ${dir} does not exist`, {
      details: { field: '--sources' },
    });
  }
  if (!top.isDirectory())
    throw new UserError('invalid_argument', `--sources: ${dir} is not a folder`, {
      details: { field: '--sources' },
    });
  const sources: InlineSource[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const full = join(folder, name);
      const info = lstatSync(full);
      const target = relative(dir, full).split(sep).join('/');
      if (info.isSymbolicLink()) {
        throw new UserError(
          'invalid_sources',
          `--sources: ${target} is a symlink; sources must be plain files`,
          { details: { field: '--sources', target } },
        );
      }
      if (info.isFile() && info.nlink > 1) {
        // A hard link is another name for a file that may live outside DIR (a host file the
        // folder's owner linked in): refused for the same reason a symlink is.
        throw new UserError(
          'invalid_sources',
          `--sources: ${target} has ${info.nlink} hard links; sources must be plain files with one link (copy the file instead of linking it)`,
          { details: { field: '--sources', target } },
        );
      }
      if (info.isDirectory()) walk(full);
      else if (info.isFile())
        sources.push({ type: 'inline', target, content: readFileSync(full, 'utf8') });
      else
        throw new UserError('invalid_sources', `--sources: ${target} is not a plain file`, {
          details: { field: '--sources', target },
        });
    }
  };
  walk(dir);
  return sources;
}
