/**
 * A store for `@fastify/rate-limit` that makes its limit a token bucket (docs/tenants.md, "Quotas"):
 * `max` tokens are added per `timeWindow`, up to `BURST_WINDOWS × max`, and each request takes one.
 * The plugin's own store counts fixed windows, which lets a client send twice its rate across a
 * window's edge and then starves it for a whole window; a bucket smooths both.
 */
export const BURST_WINDOWS = 2;

interface Bucket {
  tokens: number;
  at: number;
}

type Callback = (error: Error | null, result: { current: number; ttl: number }) => void;

/** Buckets not touched for this long are forgotten (a full bucket is the same as none). */
const FORGET_AFTER_MS = 10 * 60_000;

export class TokenBucketStore {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt = Date.now();

  constructor(
    _options?: unknown,
    private readonly now: () => number = Date.now,
  ) {}

  private refilled(key: string, timeWindow: number, max: number): Bucket {
    const now = this.now();
    const capacity = max * BURST_WINDOWS;
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / timeWindow) * max);
    bucket.at = now;
    return bucket;
  }

  /**
   * Takes a token. The plugin refuses when `current > max`; `ttl` (ms) becomes `Retry-After` and
   * is the time until the next token.
   */
  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.sweep();
    const bucket = this.refilled(key, timeWindow, max);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      callback(null, {
        current: Math.max(0, max - Math.floor(Math.min(bucket.tokens, max))),
        ttl: timeWindow,
      });
      return;
    }
    const ttl = Math.ceil(((1 - bucket.tokens) / max) * timeWindow);
    callback(null, { current: max + 1, ttl });
  }

  /** The bucket's state without taking a token. */
  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    if (!this.buckets.has(key)) {
      callback(null, { current: 0, ttl: 0 });
      return;
    }
    const bucket = this.refilled(key, timeWindow, max);
    callback(null, {
      current:
        bucket.tokens >= 1 ? Math.max(0, max - Math.floor(Math.min(bucket.tokens, max))) : max + 1,
      ttl: timeWindow,
    });
  }

  child(): TokenBucketStore {
    return new TokenBucketStore(undefined, this.now);
  }

  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < FORGET_AFTER_MS) return;
    this.sweptAt = now;
    for (const [key, bucket] of this.buckets)
      if (now - bucket.at > FORGET_AFTER_MS) this.buckets.delete(key);
  }
}
