import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** How long audit logs are kept and how much room they may take (docs/operations.md, Audit logs). */
export interface AuditRetention {
  /**
   * Logs not written to for this many days are removed.
   * @default 30
   */
  maxAgeDays?: number;
  /**
   * All logs together at most this many MiB: the oldest are removed first.
   * @default 1024
   */
  maxTotalMb?: number;
}

export const AUDIT_RETENTION_DEFAULTS = { maxAgeDays: 30, maxTotalMb: 1024 } as const;

/**
 * Removes audit logs past the retention: older than `maxAgeDays`, then the oldest until the rest
 * fit in `maxTotalMb`. The logs of live environments (`keep`) are never removed. Returns the ids of
 * the environments whose logs were removed.
 */
export function pruneAuditLogs(
  home: string,
  retention: AuditRetention,
  keep: ReadonlySet<string>,
  now = Date.now(),
): string[] {
  const folder = join(home, 'audit');
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const maxAgeMs = (retention.maxAgeDays ?? AUDIT_RETENTION_DEFAULTS.maxAgeDays) * 86_400_000;
  const maxTotal = (retention.maxTotalMb ?? AUDIT_RETENTION_DEFAULTS.maxTotalMb) * 1024 * 1024;
  const logs = names
    .map((name) => {
      try {
        const info = statSync(join(folder, name));
        return { name, id: name.slice(0, -'.jsonl'.length), size: info.size, mtime: info.mtimeMs };
      } catch {
        return undefined;
      }
    })
    .filter((log) => log !== undefined)
    .sort((a, b) => a.mtime - b.mtime);
  const removed: string[] = [];
  let total = logs.reduce((sum, log) => sum + log.size, 0);
  for (const log of logs) {
    if (keep.has(log.id)) continue;
    if (now - log.mtime <= maxAgeMs && total <= maxTotal) continue;
    rmSync(join(folder, log.name), { force: true });
    total -= log.size;
    removed.push(log.id);
  }
  return removed;
}
