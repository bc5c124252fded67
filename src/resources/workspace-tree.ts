/**
 * A workspace folder's entries, walked through the files API one folder at a time
 * (docs/environments.md, "Files"): the listing the SDKs' `files.list` shows, and the size and
 * file count of an environment.
 */
import type { FileEntry, FileTimes, WorkspaceFiles } from '../controller/workspace-files.js';

/** One entry, its path relative to /workspace. */
export interface TreeEntry {
  path: string;
  name: string;
  type: FileEntry['type'];
  size: number;
  times?: FileTimes;
}

/** A walk stops past this many entries: a workspace of a million files is not listed in one go. */
export const TREE_LIMITS = { maxEntries: 10_000 } as const;

/**
 * The entries under `root` (`""`: /workspace), folders before their contents, sorted by path;
 * `recursive` descends into folders (never through symlinks). `truncated` when the walk stopped
 * at {@link TREE_LIMITS}.
 */
export async function walkWorkspace(
  files: WorkspaceFiles,
  root: string,
  recursive: boolean,
): Promise<{ entries: TreeEntry[]; truncated: boolean; rootType: 'file' | 'directory' }> {
  const top = await files.read(root);
  if (top.type === 'file') {
    const name = top.path.split('/').pop() ?? top.path;
    return {
      entries: [
        {
          path: top.path,
          name,
          type: 'file',
          size: top.data.byteLength,
          ...(top.times ? { times: top.times } : {}),
        },
      ],
      truncated: false,
      rootType: 'file',
    };
  }
  const entries: TreeEntry[] = [];
  const queue: { path: string; listing: FileEntry[] }[] = [
    { path: top.path.replace(/\/$/, ''), listing: top.entries },
  ];
  while (queue.length > 0) {
    const { path, listing } = queue.shift()!;
    for (const entry of listing) {
      // /workspace/.agents is the read-only mirror of the gates, not the workspace's own files.
      if (path === '' && entry.name === '.agents') continue;
      if (entries.length >= TREE_LIMITS.maxEntries)
        return { entries, truncated: true, rootType: 'directory' };
      const full = path === '' ? entry.name : `${path}/${entry.name}`;
      entries.push({
        path: full,
        name: entry.name,
        type: entry.type,
        size: entry.size,
        ...(entry.times ? { times: entry.times } : {}),
      });
      if (recursive && entry.type === 'directory') {
        const inner = await files.read(full);
        if (inner.type === 'directory') queue.push({ path: full, listing: inner.entries });
      }
    }
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, truncated: false, rootType: 'directory' };
}
