import { SOURCE_LIMITS } from '../config/limits.js';
import { UserError } from '../errors/index.js';

/** Documented limits of the files API (docs/environments.md, "Files"). */
export const FILES_API_LIMITS = {
  /** One file read or written, in bytes; a folder's tar archive, up or down. */
  maxFileBytes: 16 * 1024 * 1024,
  /** Files and folders in one uploaded tar archive. */
  maxArchiveEntries: 10_000,
  /** A path, in bytes (as for sources). */
  maxPathBytes: SOURCE_LIMITS.maxTargetBytes,
  /** One segment of a path, in bytes (as for sources). */
  maxSegmentBytes: SOURCE_LIMITS.maxSegmentBytes,
} as const;

function refuse(field: string | [string, string], path: string, rule: string): never {
  const [name, shown] = Array.isArray(field) ? field : [field, field];
  throw new UserError('invalid_argument', `${shown} ${JSON.stringify(path)}: ${rule}`, {
    details: { field: name, path, rule },
  });
}

/**
 * A files-API path, relative to /workspace, checked like a source's target (docs/environments.md,
 * "Files"): no absolute path, no `.` or `..` segment, no NUL, no empty segment, nothing under the
 * read-only `.agents` mirror when writing. One trailing `/` is allowed (a folder). `""` is /workspace
 * itself. Symlinks are the agent's to check: only it sees the files.
 */
export function workspacePathOf(
  raw: string,
  options: {
    field?: string;
    /** How the message names the path, when not by its field (`body: archive member`). */
    label?: string;
    write?: boolean;
    allowRoot?: boolean;
    file?: boolean;
  } = {},
): string {
  const name = options.field ?? 'path';
  const field: [string, string] = [name, options.label ?? name];
  if (raw.includes('\0')) refuse(field, raw, 'must not contain NUL');
  if (raw.startsWith('/'))
    refuse(field, raw, 'must be relative to /workspace, not absolute (leave out the leading "/")');
  if (Buffer.byteLength(raw) > FILES_API_LIMITS.maxPathBytes)
    refuse(field, raw, `is longer than ${FILES_API_LIMITS.maxPathBytes} bytes`);
  if (options.file && raw.endsWith('/'))
    refuse(field, raw, 'ends with "/", a folder; name a file (a folder takes ?format=tar)');
  const path = raw.endsWith('/') ? raw.slice(0, -1) : raw;
  if (path === '') {
    if (options.allowRoot) return '';
    refuse(field, raw, 'names /workspace itself, not a file under it');
  }
  for (const segment of path.split('/')) {
    if (segment === '') refuse(field, raw, 'has an empty path segment (a doubled "/")');
    if (segment === '..') refuse(field, raw, 'must not contain ".." segments');
    if (segment === '.') refuse(field, raw, 'must not contain "." segments');
    if (Buffer.byteLength(segment) > FILES_API_LIMITS.maxSegmentBytes)
      refuse(field, raw, `has a segment longer than ${FILES_API_LIMITS.maxSegmentBytes} bytes`);
  }
  if (options.write && (path === '.agents' || path.startsWith('.agents/')))
    refuse(
      field,
      raw,
      'is under "/workspace/.agents", the read-only mirror of the gates; send gates as sources',
    );
  return path;
}
