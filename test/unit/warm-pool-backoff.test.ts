// The warm pool backs off when making an environment keeps failing (an engine that refuses must not
// be hammered in a hot loop), and recovers once making works again.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/record/logger.js';
import { WarmPool, type PooledSandbox } from '../../src/controller/warm-pool.js';

const logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('warm pool backoff', () => {
  it('a create that keeps failing is retried with growing delays, not in a loop', async () => {
    let attempts = 0;
    const pool = new WarmPool(
      async () => {
        attempts++;
        throw new Error('engine refuses');
      },
      { size: 2, refillConcurrency: 2, backoffMs: 100, maxBackoffMs: 1000 },
      logger,
    );
    pool.refill();
    await sleep(700);
    await pool.close();
    // 2 at once, then retries after 100, 200, 400 ms: a handful, where a hot loop makes thousands.
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(10);
  });

  it('recovers after the failures stop', async () => {
    let attempts = 0;
    const made: PooledSandbox[] = [];
    const pool = new WarmPool(
      async () => {
        attempts++;
        if (attempts <= 2) throw new Error('not yet');
        const sandbox: PooledSandbox = { destroy: async () => {} };
        made.push(sandbox);
        return sandbox;
      },
      { size: 1, refillConcurrency: 1, backoffMs: 50 },
      logger,
    );
    pool.refill();
    await pool.waitUntilReady(1, 2000);
    expect(pool.size).toBe(1);
    await pool.close();
  });
});
