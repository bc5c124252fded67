import { throwIfCancelled } from './cancel.js';

/**
 * How a model request is tried again after a failure that may pass (408, 429, 5xx, a connection that
 * broke): docs/drivers.md, Retries.
 */
export interface RetryPolicy {
  /** Tries after the first one; 0 never retries. @default 3 */
  maxRetries: number;
  /** The first backoff when the API names no wait; it doubles each try. @default 1000 */
  initialDelayMs: number;
  /**
   * The longest wait hookbox accepts. An API asking for more (`Retry-After: 3600` of a used-up daily
   * quota) fails at once, saying how long it asked, rather than holding the interaction for an hour.
   * @default 60000
   */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 1000,
  maxDelayMs: 60_000,
};

/** The options of a driver that set its {@link RetryPolicy}. */
export interface RetryOptions {
  /** Tries after the first one for a 408, 429, 5xx or broken connection. @default 3 */
  maxRetries?: number;
  /** The first backoff when the API names no wait (`Retry-After`); it doubles each try. @default 1000 */
  retryInitialDelayMs?: number;
  /** The longest `Retry-After` (or backoff) waited for; a longer one fails at once. @default 60000 */
  maxRetryDelayMs?: number;
}

export function retryPolicyOf(options: RetryOptions): RetryPolicy {
  return {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    initialDelayMs: options.retryInitialDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs,
    maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
  };
}

/**
 * The wait an answer asks for, in ms: `retry-after-ms` (OpenAI's), else `Retry-After` as seconds or
 * as an HTTP date (RFC 9110 §10.2.3). `undefined` when there is none or it cannot be read.
 */
export function retryAfterMsOf(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** A Gemini-style duration (`"38s"`, `"1.5s"`) in ms, `undefined` if it is not one. */
export function durationMsOf(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(text);
  return match ? Math.ceil(Number(match[1]) * 1000) : undefined;
}

/** The backoff before try `retry` (1-based) when the API named no wait: doubling, with jitter. */
export function backoffMs(policy: RetryPolicy, retry: number): number {
  const full = policy.initialDelayMs * 2 ** (retry - 1);
  // Half fixed, half random: clients that failed together do not all come back together.
  return Math.min(policy.maxDelayMs, Math.round(full / 2 + (Math.random() * full) / 2));
}

/** Waits `ms`, or throws as {@link throwIfCancelled} does as soon as `signal` aborts. */
export async function sleepUnlessCancelled(ms: number, signal: AbortSignal): Promise<void> {
  throwIfCancelled(signal);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
  throwIfCancelled(signal);
}
