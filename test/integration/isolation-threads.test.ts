// README, Security model: nothing tool code starts outlives its call, and background processes are
// stopped while a hook runs. A process whose main thread has exited while another thread lives
// reads `Z` in its main /proc entry, yet runs on: the per-call kill and the pause must see it.
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

// The main thread leaves with the raw exit syscall (only the calling thread ends); a second thread
// writes a heartbeat every 10 ms.
const HALF_DEAD = String.raw`import ctypes, platform, threading, time
SYS_EXIT = {'x86_64': 60, 'aarch64': 93}[platform.machine()]
def beat():
    with open('/workspace/beats', 'a') as beats:
        while True:
            beats.write('%f\n' % time.time()); beats.flush(); time.sleep(0.01)
threading.Thread(target=beat, daemon=True).start()
time.sleep(0.1)
ctypes.CDLL(None).syscall(SYS_EXIT, 0)
`;

const START =
  'nohup python3 half-dead.py >/dev/null 2>&1 & p=$!; sleep 0.4; echo "$(cut -d" " -f3 /proc/$p/stat) $(ls /proc/$p/task | wc -l)"';

async function beats(environment: Environment): Promise<number[]> {
  const outcome = await environment.call(bash('cat beats'));
  return execResultOf(outcome).stdout.trim().split('\n').map(Number);
}

describe('a process whose main thread exited while another thread runs', () => {
  it('is killed when the call ends', async () => {
    await withEnvironment(
      controller,
      { sources: [inline('workspace/half-dead.py', HALF_DEAD)] },
      async (environment) => {
        const started = await environment.call(bash(START));
        expect(execResultOf(started).stdout).toBe('Z 2\n'); // its main entry reads Z; two threads
        const counted = await environment.call(
          bash(
            'sleep 0.5; a=$(wc -l < beats); sleep 0.5; b=$(wc -l < beats); echo $((b - a)); pgrep -c -u 1000 -x python3',
          ),
        );
        expect(execResultOf(counted).stdout).toBe('0\n0\n');
      },
    );
  });

  it('with backgroundProcesses, is stopped while a hook runs, and goes on after', async () => {
    const slow = `grep -q SLOW_GATE && sleep 2 && echo '{"decision":"deny","reason":"slow gate"}'; exit 0`;
    await withEnvironment(
      controller,
      {
        backgroundProcesses: true,
        sources: [
          hooksJson({ slow: { pre_tool_execution: [rule('code_execution', slow)] } }),
          inline('workspace/half-dead.py', HALF_DEAD),
        ],
      },
      async (environment) => {
        expect(execResultOf(await environment.call(bash(START))).stdout).toBe('Z 2\n');
        const gated = await environment.call(bash('echo SLOW_GATE'));
        expect([gated.blocked, gated.reason]).toEqual([true, 'slow gate']);
        await environment.call(bash('sleep 0.3'));
        const times = await beats(environment);
        const gaps = times.slice(1).map((time, i) => time - times[i]!);
        // Its heartbeat stopped for the gate's 2 s sleep, and went on after it.
        expect(Math.max(...gaps)).toBeGreaterThan(1.8);
        expect(times.at(-1)! - times[times.length - 2]!).toBeLessThan(0.5);
      },
    );
  });
});
