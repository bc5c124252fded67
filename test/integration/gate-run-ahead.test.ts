// One request per gated call (docs/gates.md): a code call whose one pre hook is a native command
// handler travels to the agent with that hook, and runs there only on a plain allow. Anything else
// (a deny, an allow with more fields, a failure under on_error "deny") never runs the code early;
// calls with more hooks, a dialect hook or live output keep the two requests.
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { bash, hooksJson, inline, useController, withEnvironment } from './helpers.js';

const controller = useController();

/** Answers per a marker in the call's code; every answer is a decision the controller reads. */
const GATE = `p=$(cat)
case "$p" in
  *DENY-ME*) echo '{"decision": "deny", "reason": "marked"}' ;;
  *EXTRA-FIELD*) echo '{"decision": "allow", "note": 1}' ;;
  *EXIT-ONE*) echo '{"decision": "allow"}'; exit 1 ;;
  *) echo '{"decision": "allow", "reason": "fine"}' ;;
esac
`;

const gateHandler = {
  type: 'command',
  command: 'sh /.agents/hooks-scripts/gate.sh',
  timeout: 5,
  on_error: 'deny',
};

/** The agent operations of a call that run hooks or code, in order. */
function watchRequests(environment: Environment): string[] {
  const ops: string[] = [];
  const sandbox = environment.sandbox;
  const original = sandbox.request.bind(sandbox);
  sandbox.request = ((op: string, ...rest: unknown[]) => {
    if (op === 'run_hook' || op === 'run_code') ops.push(op);
    return (original as (...args: unknown[]) => unknown)(op, ...rest);
  }) as typeof sandbox.request;
  return ops;
}

/** Appends a line to /workspace/count and prints how many lines it has: each run shows. */
const counted = (marker: string) =>
  bash(`echo ${marker} >> /workspace/count; wc -l < /workspace/count`);

describe('a code call and its one pre hook in one request', () => {
  it('runs the code once on a plain allow, never on anything else', async () => {
    const sources = [
      hooksJson({
        gate: {
          pre_tool_execution: [{ matcher: 'code_execution', hooks: [gateHandler] }],
          post_tool_execution: [
            { matcher: 'code_execution', hooks: [{ type: 'command', command: 'cat >/dev/null' }] },
          ],
        },
      }),
      inline('.agents/hooks-scripts/gate.sh', GATE),
    ];
    await withEnvironment(controller, { sources }, async (environment) => {
      const ops = watchRequests(environment);

      const allowed = await environment.call(counted('plain'));
      expect(allowed.blocked).toBe(false);
      expect(allowed.result).toMatchObject({ stdout: '1\n', exit_code: 0 });
      expect(allowed.hooks.map((hook) => [hook.event, hook.outcome])).toEqual([
        ['pre_tool_execution', 'allow'],
        ['post_tool_execution', 'ok'],
      ]);
      expect(allowed.hooks[0]!.reason).toBe('fine');
      // The hook and the code in one request; the post hook in its own.
      expect(ops.splice(0)).toEqual(['run_hook', 'run_hook']);

      const denied = await environment.call(counted('DENY-ME'));
      expect([denied.blocked, denied.reason, denied.result]).toEqual([true, 'marked', null]);
      expect(ops.splice(0)).toEqual(['run_hook']);

      // An allow with a field the agent does not read is the controller's to read: two requests.
      const extra = await environment.call(counted('EXTRA-FIELD'));
      expect(extra.blocked).toBe(false);
      expect(extra.result).toMatchObject({ stdout: '2\n' });
      expect(ops.splice(0)).toEqual(['run_hook', 'run_code', 'run_hook']);

      // Allow on stdout, exit 1: a failed hook, and on_error "deny" blocks.
      const failed = await environment.call(counted('EXIT-ONE'));
      expect(failed.blocked).toBe(true);
      expect(failed.hooks[0]!.outcome).toBe('error');
      expect(ops.splice(0)).toEqual(['run_hook']);

      // Neither the denied nor the failed call ran: the file has the two allowed lines only.
      const count = await environment.call(bash('cat /workspace/count'));
      expect(count.result).toMatchObject({ stdout: 'plain\nEXTRA-FIELD\n' });
      ops.splice(0);

      // Live output goes by the code's own request.
      const chunks: string[] = [];
      const live = await environment.call(counted('live'), {
        onStdout: (chunk) => chunks.push(chunk),
      });
      expect(live.result).toMatchObject({ stdout: '3\n' });
      expect(chunks.join('')).toBe('3\n');
      expect(ops.splice(0)).toEqual(['run_hook', 'run_code', 'run_hook']);
    });
  });

  it('keeps two requests for code over 1 MiB (it would travel twice in one)', async () => {
    const sources = [
      hooksJson({
        gate: { pre_tool_execution: [{ matcher: 'code_execution', hooks: [gateHandler] }] },
      }),
      inline('.agents/hooks-scripts/gate.sh', GATE),
    ];
    await withEnvironment(controller, { sources }, async (environment) => {
      const ops = watchRequests(environment);
      const big = bash(`#${'x'.repeat(1024 * 1024)}\necho big`);
      const outcome = await environment.call(big);
      expect(outcome.result).toMatchObject({ stdout: 'big\n' });
      expect(ops).toEqual(['run_hook', 'run_code']);
    });
  });

  it.each([
    [
      'two pre hooks',
      {
        native: {
          pre_tool_execution: [{ matcher: 'code_execution', hooks: [gateHandler, gateHandler] }],
        },
      },
      ['run_hook', 'run_hook', 'run_code'],
    ],
    [
      'a lone dialect hook',
      {
        claude: {
          dialect: 'claude-code',
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: 'cat >/dev/null; exit 0' }] },
          ],
        },
      },
      ['run_hook', 'run_code'],
    ],
  ])('keeps two requests for %s', async (_what, config, expected) => {
    const sources = [hooksJson(config), inline('.agents/hooks-scripts/gate.sh', GATE)];
    await withEnvironment(controller, { sources }, async (environment) => {
      const ops = watchRequests(environment);
      const outcome = await environment.call(counted('two'));
      expect(outcome.blocked).toBe(false);
      expect(outcome.result).toMatchObject({ stdout: '1\n' });
      expect(ops).toEqual(expected);
    });
  });
});
