/** Idle environments are removed after this long without an interaction: 30 minutes. */
export const DEFAULT_ENVIRONMENT_TTL_MS = 30 * 60 * 1000;

export interface LeaseInfo {
  created: number;
  lastActive: number;
  /** Interactions running in the environment now. */
  busy: number;
}

const GONE_MEMORY = 10_000;

/**
 * Which environments are in use and since when they are idle, so idle ones can expire (pure
 * bookkeeping; the service removes what {@link EnvironmentLeases.idle} names). An environment with
 * an interaction running in it never expires.
 */
export class EnvironmentLeases {
  private readonly entries = new Map<string, LeaseInfo>();
  private readonly gone = new Map<string, 'expired' | 'deleted'>();
  private readonly goneOwners = new Map<string, string | null>();

  constructor(
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Starts tracking an environment (made now, or found untracked: one re-attached after a restart
   * counts as idle since `lastActive`, so it expires like any other).
   */
  track(id: string, lastActive?: number): LeaseInfo {
    let entry = this.entries.get(id);
    if (!entry) {
      const now = this.now();
      entry = { created: now, lastActive: Math.min(lastActive ?? now, now), busy: 0 };
      this.entries.set(id, entry);
    }
    return entry;
  }

  /** An interaction starts in the environment. */
  acquire(id: string): void {
    const entry = this.track(id);
    entry.busy += 1;
    entry.lastActive = this.now();
  }

  /** An interaction ended in the environment; its idle time starts now. */
  release(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.busy = Math.max(0, entry.busy - 1);
    entry.lastActive = this.now();
  }

  touch(id: string): void {
    const entry = this.entries.get(id);
    if (entry) entry.lastActive = this.now();
  }

  info(id: string): LeaseInfo | undefined {
    return this.entries.get(id);
  }

  /** When the environment expires if it stays idle; undefined while busy. */
  expiresAt(id: string): number | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.busy > 0) return undefined;
    return entry.lastActive + this.ttlMs;
  }

  /** The environments idle for the TTL or longer. */
  idle(): string[] {
    const now = this.now();
    return [...this.entries]
      .filter(([, entry]) => entry.busy === 0 && now - entry.lastActive >= this.ttlMs)
      .map(([id]) => id);
  }

  /** Stops tracking an environment, remembering why it is gone (for 404 messages). */
  forget(id: string, why: 'expired' | 'deleted', owner: string | null = null): void {
    this.entries.delete(id);
    this.gone.set(id, why);
    this.goneOwners.set(id, owner);
    if (this.gone.size > GONE_MEMORY) {
      const oldest = this.gone.keys().next().value as string;
      this.gone.delete(oldest);
      this.goneOwners.delete(oldest);
    }
  }

  /** The tenant that owned a once-known environment (null: none). */
  goneOwner(id: string): string | null {
    return this.goneOwners.get(id) ?? null;
  }

  /** Why a once-known environment is gone, if it was one of ours. */
  whyGone(id: string): 'expired' | 'deleted' | undefined {
    return this.gone.get(id);
  }
}
