// docs/contract.md §5 against real containers: under memory pressure, with the pid limit used up,
// or with busy background processes, tool code suffers, never the agent or the gates. Shared
// helpers: limits-helpers.ts.
import { describe, expect, it } from 'vitest';
import { bash, hooksJson, rule, useController, withEnvironment } from './helpers.js';
import { expectWorkingAndGated, GATED, run, sharedEnvironmentOf } from './limits-helpers.js';

const controller = useController();
const sharedEnvironment = sharedEnvironmentOf(controller);

describe('memory pressure', () => {
  // 40 processes of ~15 MB each (python plus 6 MB touched) in a 128 MiB container: each is smaller
  // than the sandbox agent, which the kernel's OOM killer would pick first by size alone.
  const MEMORY_BOMB = `python3 -c "
import os, time
kids = []
for _ in range(40):
    pid = os.fork()
    if pid == 0:
        block = bytearray(6 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(3)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print('bomb done')"`;

  it('kills tool processes, never the agent: the environment works and is gated after', async () => {
    await withEnvironment(
      controller,
      { sandbox: { memoryMb: 128 }, sources: GATED, toolTimeoutMs: 30_000 },
      async (squeezed) => {
        const bombed = await squeezed.call(bash(MEMORY_BOMB));
        expect(bombed.blocked).toBe(false);
        await expectWorkingAndGated(squeezed);
      },
    );
  });
});

describe('background_processes: true with the pid limit used up', () => {
  const env = sharedEnvironment({
    backgroundProcesses: true,
    sandbox: { pidsLimit: 64 },
    sources: GATED,
  });
  // Forks sleeping children until the kernel refuses, then exits: they keep every pid taken.
  const FILL_PIDS = `python3 -c "
import os, time
for _ in range(1000):
    try:
        if os.fork() == 0:
            os.closerange(0, 3)
            time.sleep(600)
            os._exit(0)
    except OSError:
        break
"`;

  it('a gate still runs (and blocks): tool processes are killed to make room for it', async () => {
    await run(env(), FILL_PIDS);
    const blocked = await env().call(bash('echo FORBIDDEN > /workspace/ran'));
    expect(blocked.hooks.map((record) => record.outcome)).toEqual(['deny']);
    expect([blocked.blocked, blocked.reason]).toEqual([true, 'forbidden word']);
    await expectWorkingAndGated(env());
    expect((await run(env(), 'ls /workspace/ran 2>&1; true')).stdout).toMatch(/No such file/);
  });
});

describe('background_processes: true, hooks and busy tool processes', () => {
  // ~100 ms of CPU, then a deny: sharing one CPU with 40 busy loops it would need seconds.
  const BUSY_GATE = `python3 -c "
import json, sys
payload = json.load(sys.stdin)
sum(range(3_000_000))
if 'FORBIDDEN' in json.dumps(payload):
    print(json.dumps({'decision': 'deny', 'reason': 'busy gate'}))"`;
  const env = sharedEnvironment({
    backgroundProcesses: true,
    sources: [
      hooksJson({
        gate: { pre_tool_execution: [rule('code_execution', { command: BUSY_GATE, timeout: 1 })] },
      }),
    ],
  });
  const SPIN = 'for i in $(seq 40); do (while :; do :; done) >/dev/null 2>&1 & done';
  const STATES = `ps -u tool -o stat=,args= | grep -v -e ps -e grep | awk '{print substr($1, 1, 1)}' | sort | uniq -c | tr -s ' '`;

  it('are stopped while a hook runs, so they cannot starve a gate into its timeout; then go on', async () => {
    await run(env(), SPIN);
    const blocked = await env().call(bash('echo FORBIDDEN'));
    expect(blocked.hooks.map((record) => [record.outcome, record.reason])).toEqual([
      ['deny', 'busy gate'],
    ]);
    // The 40 loops (and the subshells that run them) run again: none is left stopped.
    const states = (await run(env(), STATES)).stdout;
    expect(states).not.toMatch(/ T\b/);
    expect(states).toMatch(/^ ?4\d R$/m);
  });
});
