import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isEnvironmentId } from '../ids.js';

/** Where an environment's egress proxy socket lives: `<socketRoot>/<environment id>/proxy.sock`. */
export function socketRootOf(home: string, socketDir: string | undefined): string {
  return socketDir ?? join(home, 'egress');
}

/**
 * Removes the socket folders of environments that no container belongs to any more: a controller
 * that crashed leaves them behind. Only folders named like an environment id are touched, and none
 * younger than `minAgeMs` (its environment may be being made: the folder comes before the relay).
 * Returns the environment ids whose folders went.
 */
export function removeStaleSocketFolders(
  socketRoot: string,
  liveEnvironmentIds: ReadonlySet<string>,
  minAgeMs = 60_000,
  now = Date.now(),
): string[] {
  let names: string[];
  try {
    names = readdirSync(socketRoot);
  } catch {
    return []; // no networked environment was ever made here
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!isEnvironmentId(name) || liveEnvironmentIds.has(name)) continue;
    const folder = join(socketRoot, name);
    try {
      const info = statSync(folder);
      if (!info.isDirectory() || now - info.mtimeMs < minAgeMs) continue;
      rmSync(folder, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}
