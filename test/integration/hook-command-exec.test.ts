// A command handler that is one plain external program runs as `/bin/sh -c "exec COMMAND"`, as
// bash and upstream dash run it (docs/gates.md, "Prestart and workers"): no shell is left waiting
// between the agent and the gate. Anything else keeps its shell. Spawned, prestarted and worker
// handlers alike; the record and the decision are those of the command as written.
import { describe, expect, it } from 'vitest';
import { bash, hooksJson, inline, useController, withEnvironment } from './helpers.js';

const controller = useController();

/** Denies, naming the program its parent process runs (`sh` when a shell waits for it). */
const PARENT_GATE = `import json, os, sys
json.load(sys.stdin)
with open("/proc/%d/comm" % os.getppid()) as comm:
    parent = comm.read().strip()
print(json.dumps({"decision": "deny", "reason": "parent " + parent}))
`;

const WORKER_GATE = `import json, os, sys
with open("/proc/%d/comm" % os.getppid()) as comm:
    parent = comm.read().strip()
for line in sys.stdin:
    sys.stdout.write(json.dumps({"decision": "deny", "reason": "parent " + parent}) + "\\n")
    sys.stdout.flush()
`;

function gate(command: string, script: string, extra: Record<string, unknown> = {}) {
  return [
    hooksJson({
      gate: {
        pre_tool_execution: [
          { matcher: 'code_execution', hooks: [{ type: 'command', command, ...extra }] },
        ],
      },
    }),
    inline('.agents/hooks-scripts/gate.py', script),
  ];
}

describe('a command handler that is one plain program', () => {
  for (const [mode, extra] of [
    ['spawned', { prestart: false }],
    ['prestarted', { prestart: true }],
  ] as const) {
    it(`runs with no shell in between, ${mode}`, async () => {
      await withEnvironment(
        controller,
        { sources: gate('python3 /.agents/hooks-scripts/gate.py', PARENT_GATE, extra) },
        async (environment) => {
          for (let i = 0; i < 2; i++) {
            await environment.prestarted();
            const outcome = await environment.call(bash('true'));
            expect(outcome.blocked).toBe(true);
            expect(outcome.reason).not.toBe('parent sh');
            expect(outcome.reason).toMatch(/^parent /);
            expect(outcome.hooks[0]!.runner).toBe(mode);
          }
        },
      );
    });

    it(`keeps its shell when the command is more than one program, ${mode}`, async () => {
      await withEnvironment(
        controller,
        {
          sources: gate('python3 /.agents/hooks-scripts/gate.py && true', PARENT_GATE, extra),
        },
        async (environment) => {
          await environment.prestarted();
          const outcome = await environment.call(bash('true'));
          expect(outcome.reason).toBe('parent sh');
        },
      );
    });
  }

  it('runs a worker with no shell in between', async () => {
    await withEnvironment(
      controller,
      { sources: gate('python3 /.agents/hooks-scripts/gate.py', WORKER_GATE, { worker: true }) },
      async (environment) => {
        await environment.prestarted();
        const outcome = await environment.call(bash('true'));
        expect(outcome.hooks[0]!.runner).toBe('worker');
        expect(outcome.blocked).toBe(true);
        expect(outcome.reason).not.toBe('parent sh');
      },
    );
  });

  it('reports a gate killed by a signal as before: exit 128 + N, an error, fail-closed', async () => {
    const killed = `import json, os, signal, sys
json.load(sys.stdin)
print(json.dumps({"decision": "allow"}), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
`;
    for (const command of [
      'python3 /.agents/hooks-scripts/gate.py',
      'python3 /.agents/hooks-scripts/gate.py && true',
    ]) {
      await withEnvironment(
        controller,
        { sources: gate(command, killed, { on_error: 'deny' }) },
        async (environment) => {
          await environment.prestarted();
          const outcome = await environment.call(bash('echo ran'));
          expect(outcome.blocked, command).toBe(true);
          expect(outcome.hooks[0]!.exit_code, command).toBe(137);
          expect(outcome.hooks[0]!.outcome, command).toBe('error');
        },
      );
    }
  });

  it('says "not found" with exit 127 for a program that is not there', async () => {
    await withEnvironment(
      controller,
      { sources: gate('no-such-gate-program /x', PARENT_GATE) },
      async (environment) => {
        const outcome = await environment.call(bash('echo ran'));
        expect(outcome.blocked).toBe(false);
        expect(outcome.hooks[0]!.exit_code).toBe(127);
        expect(outcome.hooks[0]!.outcome).toBe('error');
        expect(outcome.hooks[0]!.reason).toMatch(/127: .*no-such-gate-program: not found/);
      },
    );
  });
});
