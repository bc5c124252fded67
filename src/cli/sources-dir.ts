import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { SOURCE_LIMITS } from '../config/limits.js';
import type { InlineSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One file as a source: its size is checked (lstat) before a byte is read, so an oversized file
 * costs no memory; UTF-8 text is sent as text, anything else as base64, so bytes are never altered
 * (docs/operations.md, Sources). `field` names the option or fixture key in messages.
 */
export function fileSource(full: string, target: string, field: string): InlineSource {
  const size = lstatSync(full).size;
  if (size > SOURCE_LIMITS.maxSourceBytes) {
    throw new UserError(
      'invalid_sources',
      `${field}: ${target}: ${size} bytes, over the limit of ${SOURCE_LIMITS.maxSourceBytes} bytes for one source`,
      { details: { field, target, limit: SOURCE_LIMITS.maxSourceBytes } },
    );
  }
  // Read at most one byte past the size seen, so a file growing meanwhile cannot exceed the limit.
  const buffer = Buffer.alloc(size + 1);
  const fd = openSync(full, 'r');
  let length = 0;
  try {
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length === buffer.length) break;
    }
  } finally {
    closeSync(fd);
  }
  if (length > size)
    throw new UserError('invalid_sources', `${field}: ${target}: changed while it was read`, {
      details: { field, target },
    });
  const bytes = buffer.subarray(0, length);
  try {
    return { type: 'inline', target, content: utf8.decode(bytes) };
  } catch {
    return { type: 'inline', target, content: bytes.toString('base64'), encoding: 'base64' };
  }
}

/**
 * Reads a sources folder: each file's path relative to DIR is its target (docs/contract.md §10). A symlink is
 * bad input: following it could send files from outside DIR; so is a file with more than one hard
 * link, which can be such a file under another name. Sizes are checked before reading: one file
 * over the per-source limit, or all of them over the total, is refused unread.
 */
export function readSourcesDir(dir: string, field = '--sources'): InlineSource[] {
  let top;
  try {
    top = lstatSync(dir);
  } catch {
    throw new UserError('invalid_argument', `${field}: ${dir} does not exist`, {
      details: { field },
    });
  }
  if (!top.isDirectory())
    throw new UserError('invalid_argument', `${field}: ${dir} is not a folder`, {
      details: { field },
    });
  const files: { full: string; target: string }[] = [];
  let total = 0;
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const full = join(folder, name);
      const info = lstatSync(full);
      const target = relative(dir, full).split(sep).join('/');
      if (info.isSymbolicLink()) {
        throw new UserError(
          'invalid_sources',
          `${field}: ${target} is a symlink; sources must be plain files`,
          { details: { field, target } },
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
      else if (info.isFile()) {
        total += info.size;
        files.push({ full, target });
      } else
        throw new UserError('invalid_sources', `${field}: ${target} is not a plain file`, {
          details: { field, target },
        });
    }
  };
  walk(dir);
  if (total > SOURCE_LIMITS.maxTotalBytes)
    throw new UserError(
      'invalid_sources',
      `${field}: ${total} bytes in all, over the limit of ${SOURCE_LIMITS.maxTotalBytes} bytes`,
      { details: { field, limit: SOURCE_LIMITS.maxTotalBytes } },
    );
  return files.map(({ full, target }) => fileSource(full, target, field));
}
