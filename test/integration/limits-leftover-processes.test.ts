// docs/contract.md §5 against real containers: processes tool code leaves are swept after each call
// (unless background_processes), and hostile process tricks leave the environment working and
// gated. Shared helpers: limits-helpers.ts.
import { describe, expect, it } from 'vitest';
import { useController, withEnvironment } from './helpers.js';
import {
  COUNT_TOOL_PROCESSES,
  expectWorkingAndGated,
  GATED,
  processesOf,
  run,
  sharedEnvironmentOf,
  timed,
} from './limits-helpers.js';

const controller = useController();
const sharedEnvironment = sharedEnvironmentOf(controller);

const LEFTOVERS = [
  ['sleep 301 &', 'sleep 301', 'sleep'],
  ['nohup sleep 302 >/dev/null 2>&1 &', 'sleep 302', 'sleep'],
  ['setsid sleep 303 >/dev/null 2>&1 &', 'sleep 303', 'sleep'],
  ["(setsid sh -c 'sleep 304 >/dev/null 2>&1 &' &)", 'sleep 304', 'sleep'],
  [
    'python3 -c "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.closerange(0, 3)\n        time.sleep(305)" daemon-305',
    'daemon-305',
    'python3',
  ],
  ['sleep 306 >/dev/null 2>&1 & disown', 'sleep 306', 'sleep'],
] as const;

describe('leftover processes', () => {
  // A short timeout so that a call that wrongly waits for its leftovers fails in 10 s, not 60 s.
  const env = sharedEnvironment({ toolTimeoutMs: 10_000, sources: GATED });

  it.each(LEFTOVERS)('%s is gone after the call', async (code, needle, name) => {
    const { result, ms } = await timed(env(), `${code}\nsleep 0.2; pgrep -c -x ${name}`);
    expect(Number(result.stdout)).toBeGreaterThanOrEqual(1); // it was running when the call ended
    expect(ms).toBeLessThan(5000);
    expect(await processesOf(env(), 'tool', needle)).toEqual([]);
  });

  it.each([
    ['sleep 5 & echo done', 2500], // in the call's process group
    ['setsid sleep 5 & echo done', 3500], // outside it
  ])('a background child holding stdout (%s) does not make the call hang', async (code, ms) => {
    const held = await timed(env(), code);
    expect(held.result.stdout).toBe('done\n');
    expect(held.ms, `${code} took ${held.ms} ms`).toBeLessThan(ms);
    expect(await processesOf(env(), 'tool', 'sleep 5')).toEqual([]);
  });

  it('kill -9 -1 from tool code leaves the environment working and gated', async () => {
    const result = await run(
      env(),
      'sleep 307 & sleep 0.1; kill -9 -1; echo "after $?"; sleep 0.1; pgrep -c -x sleep',
    );
    expect(result.stdout).toBe('after 0\n0\n');
    await expectWorkingAndGated(env());
  });

  it('a fork bomb is contained and the environment works afterwards', async () => {
    await withEnvironment(controller, { toolTimeoutMs: 3000, sources: GATED }, async (bombed) => {
      const { ms } = await timed(bombed, ':(){ :|:& };:');
      expect(ms).toBeLessThan(20_000);
      expect((await run(bombed, COUNT_TOOL_PROCESSES)).stdout).toBe('0\n');
      await expectWorkingAndGated(bombed);
    });
  });
});

describe('background_processes: true', () => {
  const env = sharedEnvironment({ backgroundProcesses: true });

  it('lets detached processes outlive the call, and later calls too', async () => {
    await run(
      env(),
      'nohup sleep 311 >/dev/null 2>&1 & setsid sleep 312 >/dev/null 2>&1 & sleep 313 >/dev/null 2>&1 &',
    );
    for (let i = 0; i < 2; i++) {
      const alive = (
        await run(env(), 'ps -eo user:12,cmd --no-headers | grep "^tool .*sleep 31[123]$" | sort')
      ).stdout;
      expect(
        alive
          .split('\n')
          .filter(Boolean)
          .map((line) => line.replace(/ +/g, ' ')),
      ).toEqual(['tool sleep 311', 'tool sleep 312', 'tool sleep 313']);
    }
  });
});
