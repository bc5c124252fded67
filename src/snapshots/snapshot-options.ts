/** Snapshots' settings (docs/environments.md, "Snapshots and forks"). */
export interface SnapshotOptions {
  /**
   * How long a snapshot is kept after it is taken, in milliseconds; then it is deleted (its volume
   * removed). `hookbox serve --snapshot-ttl <seconds>`.
   * @default 86400000 (24 h)
   */
  ttlMs?: number;
}

export const SNAPSHOT_DEFAULTS = {
  ttlMs: 24 * 60 * 60 * 1000,
  /** The most copies one fork makes (`count` is 1..this). */
  maxForkCount: 10,
} as const;
