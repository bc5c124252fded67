/**
 * The Gemini SDKs' `environments.files.list` (docs/environments.md, "Files through the SDKs"):
 * `GET …/files/{path}` as JSON, `{files: [{path, name, type, size_bytes, mime_type, created,
 * modified}], next_page_token}`; a file's own entry for a file, a folder's entries (all below it with
 * `recursive=true`) for a folder.
 */
import { extname } from 'node:path';
import type { WorkspaceFiles } from '../controller/workspace-files.js';
import { UserError } from '../errors/index.js';
import { pageOf, pageOfItems } from './paging.js';
import { walkWorkspace, type TreeEntry } from './workspace-tree.js';

/** What a listing says of a file's type, by its extension (empty for folders). */
const MIME_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.py': 'text/x-python',
  '.js': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.json': 'application/json',
  '.html': 'text/html',
  '.csv': 'text/csv',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.tar': 'application/x-tar',
  '.gz': 'application/gzip',
};

export interface SdkFileEntry {
  path: string;
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size_bytes: string;
  mime_type?: string;
  /** RFC 3339: when the entry's inode last changed (Linux keeps no birth time the agent reads). */
  created?: string;
  /** RFC 3339: when the entry was last modified. */
  modified?: string;
}

function entryOf(entry: TreeEntry): SdkFileEntry {
  const mime = entry.type === 'file' ? MIME_TYPES[extname(entry.name).toLowerCase()] : undefined;
  return {
    path: `workspace/${entry.path}`,
    name: entry.name,
    type: entry.type,
    size_bytes: String(entry.size),
    ...(entry.type === 'file' ? { mime_type: mime ?? 'application/octet-stream' } : {}),
    ...(entry.times
      ? {
          created: new Date(entry.times.ctimeMs).toISOString(),
          modified: new Date(entry.times.mtimeMs).toISOString(),
        }
      : {}),
  };
}

/** One page of the listing of `path` (relative to /workspace; `workspace/…` is accepted too). */
export async function listFiles(
  files: WorkspaceFiles,
  path: string,
  query: Record<string, unknown>,
): Promise<{ files: SdkFileEntry[]; next_page_token?: string }> {
  const recursive = query.recursive;
  if (recursive !== undefined && recursive !== 'true' && recursive !== 'false')
    throw new UserError('invalid_argument', 'recursive: must be "true" or "false"', {
      details: { field: 'recursive' },
    });
  const page = pageOf(query);
  const relative = path.replace(/^\/?workspace(\/|$)/, '');
  const tree = await walkWorkspace(files, relative, recursive === 'true');
  if (tree.truncated)
    throw new UserError(
      'payload_too_large',
      `path: more than ${tree.entries.length} entries below /workspace/${relative}; list a folder further down`,
      { details: { field: 'path' } },
    );
  const chosen = pageOfItems(tree.entries, (entry) => entry.path, page);
  return {
    files: chosen.items.map(entryOf),
    ...(chosen.nextPageToken ? { next_page_token: chosen.nextPageToken } : {}),
  };
}
