// docs/contract.md §5 against real containers: the tool call timeout kills the whole tree; output
// caps. Shared helpers: limits-helpers.ts.
import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../src/controller/environment.js';
import { bash, useController, withEnvironment } from './helpers.js';
import {
  COUNT_TOOL_PROCESSES,
  GATED,
  processesOf,
  run,
  sharedEnvironmentOf,
  timed,
} from './limits-helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();
const sharedEnvironment = sharedEnvironmentOf(controller);

describe('the tool call timeout', () => {
  const env = sharedEnvironment({ toolTimeoutMs: 1500, sources: GATED });

  it.each([
    ['sleep 31', 'sleep 31'],
    ["bash -c 'sleep 32 & sleep 32 & wait'", 'sleep 32'],
    ['sleep 33 & (sleep 33; echo x) & python3 -c "import time; time.sleep(33)" & wait', 'sleep 33'],
  ])('kills %s and its whole tree well before it would end', async (code, needle) => {
    const { result, ms, outcome } = await timed(env(), code);
    expect(result.timed_out).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(1400);
    expect(ms).toBeLessThan(8000);
    expect(outcome.error).toMatch(/timed out/);
    expect(await processesOf(env(), 'tool', needle)).toEqual([]);
    expect((await run(env(), COUNT_TOOL_PROCESSES)).stdout).toBe('0\n');
  });

  // Own environment: when this fails, the agent is still stuck on it after the controller gives up.
  it('kills the call at its timeout even when a setsid child outside its group holds stdout', async () => {
    await withEnvironment(controller, { toolTimeoutMs: 1500 }, async (isolated) => {
      const started = Date.now();
      const outcome = await isolated
        .call(bash('setsid sleep 34 & wait'))
        .catch((error: Error) => error);
      expect(
        outcome instanceof Error ? outcome.message : 'answered',
        `after ${Date.now() - started} ms`,
      ).toBe('answered');
      expect(execResultOf(outcome as CallOutcome).timed_out).toBe(true);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(await processesOf(isolated, 'tool', 'sleep 34')).toEqual([]);
    });
  });

  it('a call that ends in time is not marked timed out', async () => {
    const result = await run(env(), 'sleep 0.2; echo ok');
    expect([result.timed_out, result.exit_code, result.stdout]).toEqual([false, 0, 'ok\n']);
  });
});

describe('output caps', () => {
  const env = sharedEnvironment({ outputCapBytes: 1000 });
  const many = (bytes: number, char: string) => `head -c ${bytes} /dev/zero | tr '\\0' ${char}`;

  it('caps stdout at outputCapBytes and says so', async () => {
    const result = await run(env(), many(5000, 'a'));
    expect([result.stdout, result.stderr, result.truncated, result.exit_code]).toEqual([
      'a'.repeat(1000),
      '',
      true,
      0,
    ]);
  });

  it('caps stderr separately', async () => {
    const result = await run(env(), `${many(5000, 'b')} >&2; echo ok`);
    expect([result.stdout, result.stderr, result.truncated]).toEqual([
      'ok\n',
      'b'.repeat(1000),
      true,
    ]);
    const both = await run(env(), `${many(3000, 'c')}; ${many(3000, 'd')} >&2`);
    expect([both.stdout, both.stderr, both.truncated]).toEqual([
      'c'.repeat(1000),
      'd'.repeat(1000),
      true,
    ]);
  });

  it('output at the cap is whole and not truncated', async () => {
    const result = await run(env(), `${many(1000, 'e')}; ${many(999, 'f')} >&2`);
    expect([result.stdout.length, result.stderr.length, result.truncated]).toEqual([
      1000,
      999,
      false,
    ]);
  });

  it('the default cap is 1 MiB', async () => {
    await withEnvironment(controller, {}, async (plain) => {
      const result = await run(plain, `${many(2 * 1024 * 1024, 'g')}; ${many(1000, 'h')} >&2`);
      expect([result.stdout.length, result.stderr.length, result.truncated]).toEqual([
        1024 * 1024,
        1000,
        true,
      ]);
    });
  });
});
