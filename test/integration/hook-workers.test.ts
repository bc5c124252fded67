// Persistent gate workers (docs/gates.md, "Prestart and workers"): one process answers event after
// event; one that crashes, hangs or answers garbage is replaced and the event is answered by a
// one-shot run of the same command, never by a silent allow.
import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../src/controller/environment.js';
import { bash, hooksJson, inline, useController, withEnvironment } from './helpers.js';

const controller = useController();

/**
 * As a worker: answers per the code it is shown (`crash`, `hang`, `garbage` misbehave), with its
 * own pid and event count so reuse shows. As a one-shot run: denies, saying so (or, for code
 * containing `oneshot-crash`, exits 1).
 */
const WORKER_GATE = `
import json, os, sys, time
if os.environ.get("HOOKBOX_WORKER") == "1":
    count = 0
    for line in sys.stdin:
        message = json.loads(line)
        count += 1
        code = message["event"]["tool_call"]["args"]["code"]
        if "crash" in code:
            sys.exit(3)
        if "hang" in code:
            time.sleep(60)
        if "garbage" in code:
            print("this is not json", flush=True)
            continue
        env = message["env"]
        reason = " ".join([str(os.getpid()), str(count), env["HOOKBOX_CALL_ID"], env["HOOKBOX_TOOL_NAME"]])
        print(json.dumps({"decision": "deny" if "deny" in code else "allow", "reason": reason}), flush=True)
else:
    code = json.load(sys.stdin)["tool_call"]["args"]["code"]
    if "oneshot-crash" in code:
        sys.exit(1)
    print(json.dumps({"decision": "deny", "reason": "one-shot " + os.environ["HOOKBOX_CALL_ID"]}))
`;

function workerGate(onError: 'allow' | 'deny') {
  return [
    hooksJson({
      gate: {
        pre_tool_execution: [
          {
            matcher: 'code_execution',
            hooks: [
              {
                type: 'command',
                command: 'python3 /.agents/hooks-scripts/gate.py',
                worker: true,
                timeout: 2,
                on_error: onError,
              },
            ],
          },
        ],
      },
    }),
    inline('.agents/hooks-scripts/gate.py', WORKER_GATE),
  ];
}

const hookOf = (outcome: CallOutcome) => outcome.hooks[0]!;

describe('gate workers', () => {
  it('answer event after event from one process, with each call’s values', async () => {
    await withEnvironment(controller, { sources: workerGate('allow') }, async (environment) => {
      const pids = new Set<string>();
      for (let i = 1; i <= 3; i++) {
        const outcome = await environment.call(bash(i === 3 ? 'echo deny' : 'echo ok'));
        expect(hookOf(outcome).runner).toBe('worker');
        const [pid, count, callId, tool] = hookOf(outcome).reason?.split(' ') ?? [];
        pids.add(pid!);
        expect([count, callId, tool]).toEqual([String(i), outcome.call_id, 'code_execution']);
        expect(outcome.blocked).toBe(i === 3);
      }
      expect(pids.size).toBe(1);
    });
  });

  for (const misbehaviour of ['crash', 'hang', 'garbage'] as const) {
    it(`fall back to a one-shot run when the worker answers with a ${misbehaviour}`, async () => {
      await withEnvironment(controller, { sources: workerGate('allow') }, async (environment) => {
        const before = await environment.call(bash('echo ok'));
        const outcome = await environment.call(bash(`echo ${misbehaviour}`));
        expect(hookOf(outcome)).toMatchObject({
          runner: 'worker_fallback',
          outcome: 'deny',
          reason: `one-shot ${outcome.call_id}`,
        });
        expect(hookOf(outcome).runner_note).toMatch(
          { crash: /exited/, hang: /did not answer within 2 s/, garbage: /JSON object/ }[
            misbehaviour
          ],
        );
        expect(outcome.blocked).toBe(true);
        // A new worker answers the next event.
        const after = await environment.call(bash('echo ok'));
        expect(hookOf(after).runner).toBe('worker');
        expect(hookOf(after).reason?.split(' ')[0]).not.toBe(hookOf(before).reason?.split(' ')[0]);
        expect(hookOf(after).reason?.split(' ')[1]).toBe('1');
      });
    });
  }

  it('fail closed under on_error "deny" when the fallback fails too', async () => {
    await withEnvironment(controller, { sources: workerGate('deny') }, async (environment) => {
      const outcome = await environment.call(bash('echo crash oneshot-crash'));
      expect(hookOf(outcome)).toMatchObject({ runner: 'worker_fallback', outcome: 'error' });
      expect(outcome.blocked).toBe(true);
      expect(outcome.result).toBeNull();
    });
  });

  it('are replaced with the gates', async () => {
    await withEnvironment(controller, { sources: workerGate('allow') }, async (environment) => {
      const first = await environment.call(bash('echo ok'));
      const { placeSources } = await import('../../src/config/sources.js');
      await environment.addSources(placeSources(workerGate('allow')));
      const second = await environment.call(bash('echo ok'));
      expect(hookOf(second).runner).toBe('worker');
      expect(hookOf(second).reason?.split(' ')[0]).not.toBe(hookOf(first).reason?.split(' ')[0]);
      expect(hookOf(second).reason?.split(' ')[1]).toBe('1');
    });
  });
});
