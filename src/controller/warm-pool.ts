import type { Logger } from '../record/logger.js';
import type { Sandbox } from '../sandbox/sandbox.js';

/** Options of the warm pool. */
export interface WarmPoolOptions {
  /**
   * Hardened, empty environments kept ready. 0 turns the pool off.
   * @default 0
   */
  size: number;
  /**
   * How many pooled environments are made at the same time while refilling.
   * @default 2
   */
  refillConcurrency?: number;
  /**
   * After a failed create, the pool waits this long before trying again, doubling with each failure
   * in a row up to `maxBackoffMs` (an engine that refuses must not be hammered in a loop).
   * @default 1000
   */
  backoffMs?: number;
  /** @default 60000 */
  maxBackoffMs?: number;
}

/** What the pool does with what it holds: destroys the ones no one was handed. */
export type PooledSandbox = Pick<Sandbox, 'destroy'>;

/**
 * Environments created ahead of time — same image, limits and lock-down as a cold one, with no
 * sources yet — handed out once each (never one that was used) and refilled in the background.
 */
export class WarmPool<S extends PooledSandbox = Sandbox> {
  private readonly ready: S[] = [];
  private filling = 0;
  private closed = false;
  /** Failed creates in a row; refilling waits while `retryAt` is ahead. */
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly make: () => Promise<S>,
    private readonly options: WarmPoolOptions,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.ready.length;
  }

  /** How many it keeps ready when full (the console shows it next to `size`). */
  get target(): number {
    return this.options.size;
  }

  /** How many are being created right now. */
  get starting(): number {
    return this.filling;
  }

  /** Starts (or continues) filling up to the configured size. */
  refill(): void {
    const concurrency = this.options.refillConcurrency ?? 2;
    while (
      !this.closed &&
      this.retryTimer === undefined &&
      this.ready.length + this.filling < this.options.size &&
      this.filling < concurrency
    ) {
      this.filling++;
      this.make()
        .then(async (sandbox) => {
          this.failures = 0;
          if (this.closed) await sandbox.destroy();
          else this.ready.push(sandbox);
        })
        .catch((error: unknown) => {
          this.failures++;
          const delay = Math.min(
            (this.options.backoffMs ?? 1000) * 2 ** (this.failures - 1),
            this.options.maxBackoffMs ?? 60_000,
          );
          this.logger.warn(
            { error: (error as Error).message, failures: this.failures, retry_in_ms: delay },
            'warm pool: making an environment failed',
          );
          if (!this.closed && this.retryTimer === undefined) {
            this.retryTimer = setTimeout(() => {
              this.retryTimer = undefined;
              this.refill();
            }, delay);
            this.retryTimer.unref();
          }
        })
        .finally(() => {
          this.filling--;
          this.refill();
        });
    }
  }

  /** Resolves once the pool holds `count` environments (for start-up and benchmarks). */
  async waitUntilReady(count = this.options.size, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.ready.length < count && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Takes one ready environment out of the pool, or undefined when none is ready. */
  take(): S | undefined {
    const sandbox = this.ready.shift();
    this.refill();
    return sandbox;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const pooled = this.ready.splice(0);
    await Promise.allSettled(pooled.map((sandbox) => sandbox.destroy()));
  }
}
