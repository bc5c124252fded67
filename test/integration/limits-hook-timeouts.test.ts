// docs/contract.md §6 against real containers: hook timeouts (and on_error "deny"), and hook
// leftovers. Shared helpers: limits-helpers.ts.
import { describe, expect, it } from 'vitest';
import { bash, hooksJson, rule, useController } from './helpers.js';
import { processesOf, run, sharedEnvironmentOf, timed } from './limits-helpers.js';

const controller = useController();
const sharedEnvironment = sharedEnvironmentOf(controller);

describe('hook timeouts and hook leftovers', () => {
  const env = sharedEnvironment({
    sources: [
      hooksJson({
        lenient: {
          pre_tool_execution: [
            rule('code_execution', {
              command: 'if grep -q SLOW_ALLOW; then sleep 10; fi',
              timeout: 1,
            }),
          ],
        },
        strict: {
          pre_tool_execution: [
            rule('code_execution', {
              // Under on_error "deny" only an explicit allow lets a call through.
              command: `if grep -q SLOW_DENY; then sleep 10; fi; echo '{"decision":"allow"}'`,
              timeout: 1,
              on_error: 'deny',
            }),
          ],
        },
        leaky: {
          pre_tool_execution: [
            rule('code_execution', {
              command: 'if grep -q LEAK_HELD; then sleep 321 & fi; echo "{}"',
              timeout: 4,
            }),
            rule('code_execution', {
              command: 'if grep -q LEAK_DETACHED; then sleep 322 >/dev/null 2>&1 & fi; exit 0',
              timeout: 4,
            }),
            rule('code_execution', {
              command: 'if grep -q LEAK_NOHUP; then nohup sleep 323 >/dev/null 2>&1 & fi; exit 0',
              timeout: 4,
            }),
          ],
        },
      }),
    ],
  });

  it('a hook past its timeout is recorded as timeout and the call is allowed', async () => {
    const { result, ms, outcome } = await timed(env(), 'echo SLOW_ALLOW');
    expect(result.stdout).toBe('SLOW_ALLOW\n');
    expect(ms).toBeLessThan(5000);
    const hook = outcome.hooks.find((record) => record.group === 'lenient')!;
    expect([hook.outcome, hook.reason]).toEqual(['timeout', 'timed out after 1 s']);
    expect(
      env()
        .records()
        .some(
          (entry) => entry.kind === 'hook' && (entry as { outcome?: string }).outcome === 'timeout',
        ),
    ).toBe(true);
    expect(await processesOf(env(), 'hook', 'sleep 10')).toEqual([]);
  });

  it('with on_error "deny" a hook timeout blocks the call', async () => {
    const started = Date.now();
    const outcome = await env().call(bash('echo SLOW_DENY > /workspace/ran'));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toMatch(/timed out after 1 s.*on_error is "deny"/);
    expect(outcome.hooks.find((record) => record.group === 'strict')?.outcome).toBe('timeout');
    expect((await run(env(), 'ls /workspace/ran 2>&1; true')).stdout).toMatch(/No such file/);
    expect(await processesOf(env(), 'hook', 'sleep 10')).toEqual([]);
  });

  // A hook's leftovers are not tool processes, so the after-call sweep does not reach them; only its
  // process group is killed, and only when it times out or holds the output pipe open.
  it.each([
    ['LEAK_HELD', 'sleep 321'],
    ['LEAK_DETACHED', 'sleep 322'],
    ['LEAK_NOHUP', 'sleep 323'],
  ])('a hook that forks a background sleep (%s) leaves nothing behind', async (word, needle) => {
    const { ms, outcome } = await timed(env(), `echo ${word}`);
    expect(ms).toBeLessThan(3000);
    expect(
      outcome.hooks.every(
        (record) => record.outcome === 'allow' || record.outcome === 'unrecognized',
      ),
    ).toBe(true);
    expect(
      await processesOf(env(), 'hook', needle),
      `hook process left running after the call: ${needle}`,
    ).toEqual([]);
  });
});
