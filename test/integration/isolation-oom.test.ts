// README, Security model: tool code gets oom_score_adj 1000, so when memory runs out the kernel
// kills tool code first and the agent last. Tool code must not be able to lower its score: a memory
// bomb of many small processes at score 0 made the agent (the largest process) the OOM killer's
// choice, and the environment was lost with no record of the call that did it.
import { describe, expect, it } from 'vitest';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf, toolErrorOf } from '../../src/tools/results.js';

const controller = useController();

const GATE = `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`;
const SOURCES = [
  hooksJson({ gate: { pre_tool_execution: [rule('*', '/.agents/gate.sh')] } }),
  inline('.agents/gate.sh', GATE),
];

// Lowers its own score (and its children's), then forks many small processes that each take 6 MiB.
const BOMB = String.raw`import os, time
for value in ('0', '-1000', '999'):
    try:
        open('/proc/self/oom_score_adj', 'w').write(value)
    except OSError as error:
        print(value, type(error).__name__)
print(open('/proc/self/oom_score_adj').read().strip(), flush=True)
for _ in range(150):
    try:
        if os.fork() == 0:
            block = bytearray(6 << 20)
            for i in range(0, len(block), 4096): block[i] = 1
            time.sleep(30)
            os._exit(0)
    except OSError:
        break
time.sleep(8)
`;

describe('tool code cannot lower its oom_score_adj', () => {
  it('writing 0, -1000 or 999 is refused; a memory bomb kills tool processes, never the agent; the call is recorded', async () => {
    await withEnvironment(
      controller,
      {
        sources: [...SOURCES, inline('workspace/bomb.py', BOMB)],
        sandbox: { memoryMb: 256 },
        toolTimeoutMs: 20_000,
      },
      async (environment) => {
        const lowered = await environment.call(
          bash('echo 0 > /proc/self/oom_score_adj; cat /proc/self/oom_score_adj'),
        );
        expect(execResultOf(lowered).stdout).toBe('1000\n');
        expect(execResultOf(lowered).stderr).toMatch(/Permission denied/);
        const bomb = await environment.call(bash('python3 bomb.py'));
        expect(execResultOf(bomb).stdout).toMatch(
          /^0 PermissionError\n-1000 PermissionError\n999 PermissionError\n1000\n/,
        );
        const agent = await environment.call(
          bash('cat /proc/$(pgrep -u root -x python3)/oom_score_adj; echo alive'),
        );
        expect(execResultOf(agent).stdout).toBe('0\nalive\n');
        const gated = await environment.call(bash('echo FORBIDDEN'));
        expect([gated.blocked, gated.reason]).toEqual([true, 'forbidden word']);
        const calls = environment
          .records()
          .filter((entry) => entry.kind === 'tool_call')
          .map(
            (entry) =>
              (entry as { tool_call: { args: Record<string, unknown> } }).tool_call.args.code,
          );
        expect(calls).toContain('python3 bomb.py');
      },
    );
  });

  it("nor through the file tools: writes to a background process's /proc files are refused, by path or symlink", async () => {
    for (const vocabulary of ['2026-05', '2026-09'] as const) {
      await withEnvironment(
        controller,
        { backgroundProcesses: true, vocabulary },
        async (environment) => {
          const started = await environment.call(
            bash('nohup sleep 60 >/dev/null 2>&1 & echo $!; ln -s /proc/$!/oom_score_adj link'),
          );
          const pid = execResultOf(started).stdout.trim();
          for (const path of [`/proc/${pid}/oom_score_adj`, 'link']) {
            const write =
              vocabulary === '2026-05'
                ? { name: 'write_file', args: { path, content: '0' } }
                : {
                    name: 'write_to_file',
                    args: { TargetFile: path, CodeContent: '0', Overwrite: true },
                  };
            const outcome = await environment.call(write);
            expect(toolErrorOf(outcome), `${vocabulary} ${path}`).toMatch(/Permission denied/);
          }
          const score = await environment.call(bash(`cat /proc/${pid}/oom_score_adj`));
          expect(execResultOf(score).stdout).toBe('1000\n');
        },
      );
    }
  });
});
