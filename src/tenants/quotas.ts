import { totalmem } from 'node:os';
import { UserError } from '../errors/index.js';
import type { Caller } from './tenant.js';

const MIB = 1024 * 1024;

/** What a tenant holds on the engine's disk, in bytes, as last measured. */
export interface DiskUse {
  /** Its live environments' workspaces. */
  workspacesBytes: number;
  /** Its snapshots' volumes. */
  snapshotsBytes: number;
}

/**
 * The server-wide ceiling on live environments when `--max-environments` is not given: one per
 * 256 MiB of the machine's memory, from 2 to 1000 (docs/operations.md, "Sizing"). An idle
 * environment uses far less; the ceiling leaves room for the ones that work.
 */
export function defaultMaxEnvironments(memoryBytes = totalmem()): number {
  return Math.max(2, Math.min(1000, Math.floor(memoryBytes / (256 * MIB))));
}

/** A 429 in hookbox's shape, naming the quota (`details.quota`) and when to try again. */
export function quotaExceeded(quota: string, message: string, retryAfterS: number): UserError {
  return new UserError('quota_exceeded', `${quota}: ${message}`, {
    details: { field: quota, quota, retry_after_s: Math.max(1, Math.ceil(retryAfterS)) },
  });
}

/** How long a refused client is told to wait when nothing says when room will be made. */
const RETRY_AFTER_BUSY_S = 5;

/**
 * Counts what each tenant holds against its quotas, and the server-wide ceiling. Checks and
 * reservations are synchronous, so concurrent requests cannot both take the last place; a
 * reservation is given back with the function each check returns (when the thing is made, or failed).
 */
export class QuotaBook {
  private readonly creating = new Map<string, number>();
  private creatingTotal = 0;
  private readonly running = new Map<string, number>();
  private readonly handOuts = new Map<string, number[]>();

  constructor(
    /** Live environments the server holds at most, across tenants. */
    readonly maxEnvironments: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Reserves room for `count` new environments of the caller's (a fork makes several at once),
   * given how many live environments the tenant and the server hold now. Throws a 429 past the
   * tenant's quota or the server's ceiling, reserving nothing.
   */
  reserveEnvironment(
    caller: Caller,
    tenantLive: number,
    serverLive: number,
    count = 1,
  ): () => void {
    const mine = tenantLive + (this.creating.get(caller.tenant) ?? 0);
    if (mine + count > caller.quotas.environments) {
      const more =
        count > 1
          ? ` and its quota is ${caller.quotas.environments}: ${count} more would pass it`
          : ', its quota';
      throw quotaExceeded(
        'environments',
        `tenant ${caller.tenant} has ${mine} live environment(s)${more}; delete one (DELETE /v1beta/environments/{id}) or wait for one to expire`,
        RETRY_AFTER_BUSY_S,
      );
    }
    if (serverLive + this.creatingTotal + count > this.maxEnvironments) {
      throw quotaExceeded(
        'max_environments',
        `the server holds ${this.maxEnvironments} live environment(s), its ceiling (--max-environments); try again later`,
        RETRY_AFTER_BUSY_S,
      );
    }
    this.creating.set(caller.tenant, (this.creating.get(caller.tenant) ?? 0) + count);
    this.creatingTotal += count;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.creatingTotal -= count;
      const left = (this.creating.get(caller.tenant) ?? count) - count;
      if (left > 0) this.creating.set(caller.tenant, left);
      else this.creating.delete(caller.tenant);
    };
  }

  /** Counts one interaction of the caller's as running; throws a 429 past its quota. */
  startInteraction(caller: Caller): () => void {
    const now = this.running.get(caller.tenant) ?? 0;
    if (now >= caller.quotas.interactions) {
      throw quotaExceeded(
        'interactions',
        `tenant ${caller.tenant} has ${now} interaction(s) running, its quota; wait for one to end`,
        RETRY_AFTER_BUSY_S,
      );
    }
    this.running.set(caller.tenant, now + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.running.get(caller.tenant) ?? 1) - 1;
      if (left > 0) this.running.set(caller.tenant, left);
      else this.running.delete(caller.tenant);
    };
  }

  /** Interactions the tenant has running now. */
  runningOf(tenant: string): number {
    return this.running.get(tenant) ?? 0;
  }

  private recentHandOuts(tenant: string): number[] {
    const since = this.now() - 60_000;
    const recent = (this.handOuts.get(tenant) ?? []).filter((at) => at > since);
    if (recent.length > 0) this.handOuts.set(tenant, recent);
    else this.handOuts.delete(tenant);
    return recent;
  }

  /**
   * Whether the tenant may be handed a warm-pool environment now: fewer than its quota of hand-outs
   * in the last minute. Past it, its environments are made cold (docs/tenants.md, "Quotas").
   */
  pooledAllowed(caller: Caller): boolean {
    return this.recentHandOuts(caller.tenant).length < caller.quotas.pooledPerMinute;
  }

  /**
   * Throws a 429 naming `pooled_per_minute` when the tenant has had its quota of warm-pool hand-outs
   * in the last minute; `Retry-After` is when the oldest of them leaves the minute.
   */
  checkPooled(caller: Caller): void {
    const recent = this.recentHandOuts(caller.tenant);
    if (recent.length < caller.quotas.pooledPerMinute) return;
    throw quotaExceeded(
      'pooled_per_minute',
      `tenant ${caller.tenant} has had ${recent.length} environments from the warm pool in the last minute, its quota is ${caller.quotas.pooledPerMinute}`,
      (Math.min(...recent) + 60_000 - this.now()) / 1000,
    );
  }

  /** Records one warm-pool hand-out to the tenant. */
  recordPooled(caller: Caller): void {
    this.handOuts.set(caller.tenant, [...this.recentHandOuts(caller.tenant), this.now()]);
  }

  /**
   * A 429 `disk_mb` when the tenant's workspaces and snapshots hold its quota already, or would
   * pass it with `adding` (docs/tenants.md, "What counts against disk_mb").
   */
  checkDisk(caller: Caller, use: DiskUse, adding?: { bytes: number; what: string }): void {
    const quota = caller.quotas.diskMb * MIB;
    const used = use.workspacesBytes + use.snapshotsBytes;
    const mib = (bytes: number) => (bytes / MIB).toFixed(0);
    const held = `tenant ${caller.tenant} holds ${mib(used)} MiB (workspaces ${mib(use.workspacesBytes)} MiB, snapshots ${mib(use.snapshotsBytes)} MiB)`;
    const free =
      'delete files, environments (DELETE /v1beta/environments/{id}) or snapshots (DELETE /v1beta/snapshots/{id})';
    if (used >= quota)
      throw quotaExceeded(
        'disk_mb',
        `${held}, its quota is ${caller.quotas.diskMb} MiB; ${free}`,
        60,
      );
    if (adding && used + adding.bytes > quota)
      throw quotaExceeded(
        'disk_mb',
        `${held}; ${adding.what} would add ${mib(adding.bytes)} MiB, past its quota of ${caller.quotas.diskMb} MiB; ${free}`,
        60,
      );
  }
}
