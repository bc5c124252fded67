// Snapshot volumes whose record is gone: left by a controller that died without a state file.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { ContainerClient } from '../sandbox/container-client.js';
import {
  LABEL_CONTROLLER_PID,
  LABEL_CONTROLLER_PID_NAMESPACE,
  LABEL_MANAGED,
  LABEL_SNAPSHOT,
  LABEL_STATE_FILE,
  pidNamespace,
} from '../sandbox/labels.js';
import { isDatabaseLocation, processAlive } from '../controller/reaper.js';

/** Whether the state file named on the volume still lists the snapshot (its controller comes back for it). */
function keptByStateFile(labels: Record<string, string>): boolean {
  const file = labels[LABEL_STATE_FILE];
  if (!file) return false;
  // A database's snapshots are its replicas' to sweep (docs/operations.md, Orphans).
  if (isDatabaseLocation(file)) return true;
  if (!existsSync(file)) return false;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (
        db.prepare('SELECT 1 FROM snapshots WHERE id = ?').get(labels[LABEL_SNAPSHOT]) !== undefined
      );
    } finally {
      db.close();
    }
  } catch {
    // Unreadable (or no snapshots table yet): keep it.
    return true;
  }
}

/**
 * Removes snapshot volumes no record lists: not among `known` (this controller's), their
 * controller's process gone (judged in our own pid namespace only), and not listed in the state
 * file that made them. Returns their names.
 */
export async function reapSnapshotVolumes(
  client: ContainerClient,
  known: ReadonlySet<string>,
): Promise<string[]> {
  const removed: string[] = [];
  for (const volume of await client.listVolumes([`${LABEL_MANAGED}=true`, LABEL_SNAPSHOT])) {
    const labels = volume.labels;
    if (known.has(labels[LABEL_SNAPSHOT] ?? '')) continue;
    const namespace = labels[LABEL_CONTROLLER_PID_NAMESPACE];
    if (namespace !== undefined && namespace !== pidNamespace()) continue;
    if (processAlive(Number(labels[LABEL_CONTROLLER_PID])) || keptByStateFile(labels)) continue;
    try {
      await client.removeVolume(volume.name);
      removed.push(volume.name);
    } catch {
      // In use or refused: the next round tries again.
    }
  }
  return removed;
}
