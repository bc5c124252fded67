// The hook engine (src/hooks/hook-engine.ts) with an executor the compiler holds to HandlerExecutor:
// which handlers a call matches, in what order, what their answers decide, and what a timed-out or
// failed handler comes to under on_error (docs/gates.md, docs/contract.md §6).
import { describe, expect, it } from 'vitest';
import { parseHooksConfig, type HookHandler } from '../../../src/config/hooks-config.js';
import type { HandlerRun } from '../../../src/hooks/decision.js';
import {
  matchingHandlers,
  runPostHooks,
  runPreHooks,
  type HandlerExecutor,
  type HookCallContext,
} from '../../../src/hooks/hook-engine.js';
import type { ToolCall } from '../../../src/tools/types.js';

type Run = Partial<HandlerRun>;

/** Answers each command handler from `runs` (by its command) and keeps what it was given. */
class ScriptedExecutor implements HandlerExecutor {
  readonly ran: { command: string; stdin: unknown; env: Record<string, string> }[] = [];
  constructor(private readonly runs: Record<string, Run>) {}
  run(handler: HookHandler, stdin: string, env: Record<string, string>, call: HookCallContext) {
    const command = handler.type === 'command' ? handler.command : handler.url;
    this.ran.push({ command, stdin: JSON.parse(stdin), env });
    expect(env.HOOKBOX_CALL_ID).toBe(call.callId);
    const run = this.runs[command] ?? {};
    return Promise.resolve({
      exit_code: 0,
      timed_out: false,
      stdout: '',
      stderr: '',
      truncated: false,
      duration_ms: 1,
      ...run,
    });
  }
}

const context: HookCallContext = {
  environmentId: 'env_test',
  callId: 'call_test',
  toolName: 'code_execution',
  stateDir: '/state',
};
const CODE = { name: 'code_execution', args: { code: 'ls' } };
const READ = { name: 'read_file', args: { path: 'a' } };
const pre = (matcher: string, ...commands: (string | { command: string; on_error: string })[]) => ({
  matcher,
  hooks: commands.map((c) =>
    typeof c === 'string' ? { type: 'command', command: c } : { type: 'command', ...c },
  ),
});
const config = (groups: Record<string, unknown>) => parseHooksConfig(JSON.stringify(groups));
const allow = { stdout: '{"decision":"allow"}' };
const deny = (reason: string) => ({ stdout: JSON.stringify({ decision: 'deny', reason }) });

describe('the hook engine', () => {
  it('matches handlers by tool name and pattern, in file order', () => {
    const gates = config({
      a: { pre_tool_execution: [pre('code_execution', 'one'), pre('read_.*', 'two')] },
      b: { pre_tool_execution: [pre('*', 'three')] },
      off: { enabled: false, pre_tool_execution: [pre('*', 'never')] },
    });
    const names = (call: ToolCall) =>
      matchingHandlers(gates, 'pre_tool_execution', call).map((m) =>
        m.handler.type === 'command' ? m.handler.command : '',
      );
    expect(names(CODE)).toEqual(['one', 'three']);
    expect(names(READ)).toEqual(['two', 'three']);
  });

  it('stops at the first deny: later handlers are recorded as skipped', async () => {
    const gates = config({ g: { pre_tool_execution: [pre('*', 'first', 'second', 'third')] } });
    const executor = new ScriptedExecutor({ first: allow, second: deny('no'), third: allow });
    const result = await runPreHooks(gates, executor, CODE, context);
    expect(result).toMatchObject({ blocked: true, reason: 'no' });
    expect(result.records.map((r) => r.outcome)).toEqual(['allow', 'deny', 'skipped']);
    expect(executor.ran.map((r) => r.command)).toEqual(['first', 'second']);
    expect(executor.ran[0]!.env).toMatchObject({
      HOOKBOX_EVENT: 'pre_tool_execution',
      HOOKBOX_TOOL_NAME: 'code_execution',
      HOOKBOX_ENVIRONMENT_ID: 'env_test',
    });
    expect(executor.ran[0]!.stdin).toMatchObject({ tool_call: CODE });
  });

  it('collects asks without stopping, and a later deny still blocks', async () => {
    const gates = config({ g: { pre_tool_execution: [pre('*', 'asks', 'denies')] } });
    const asks = { stdout: '{"decision":"ask","reason":"check"}' };
    const onlyAsk = await runPreHooks(
      config({ g: { pre_tool_execution: [pre('*', 'asks')] } }),
      new ScriptedExecutor({ asks }),
      CODE,
      context,
    );
    expect(onlyAsk.blocked).toBe(false);
    expect(onlyAsk.asks).toMatchObject([{ group: 'g', handler: 'asks', reason: 'check' }]);
    const both = await runPreHooks(
      gates,
      new ScriptedExecutor({ asks, denies: deny('never') }),
      CODE,
      context,
    );
    expect(both).toMatchObject({ blocked: true, reason: 'never' });
  });

  it.each([
    ['a timeout', { timed_out: true, exit_code: 137 }],
    ['a crash', { exit_code: 1, stderr: 'Traceback' }],
  ])('under on_error "deny", %s blocks; by default it allows', async (_name, failure) => {
    const strict = config({
      g: { pre_tool_execution: [pre('*', { command: 'gate', on_error: 'deny' })] },
    });
    const lenient = config({ g: { pre_tool_execution: [pre('*', 'gate')] } });
    const executor = new ScriptedExecutor({ gate: failure });
    expect((await runPreHooks(strict, executor, CODE, context)).blocked).toBe(true);
    expect((await runPreHooks(lenient, executor, CODE, context)).blocked).toBe(false);
  });

  it('refuses a rewrite its validator rejects', async () => {
    const gates = config({
      g: { dialect: 'claude-code', PreToolUse: [pre('Bash', 'rewrite')] },
    });
    const rewrite = {
      stdout: JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'allow',
          updatedInput: { command: 'rm -rf /' },
        },
      }),
    };
    const refused = await runPreHooks(
      gates,
      new ScriptedExecutor({ rewrite }),
      CODE,
      context,
      () => {},
      () => ({ error: 'not that' }),
    );
    expect(refused).toMatchObject({ blocked: true });
    expect(refused.reason).toContain('not that');
  });

  it('runs post hooks with the result and collects their context for the model', async () => {
    const gates = config({
      g: {
        dialect: 'claude-code',
        PostToolUse: [pre('Bash', 'post')],
      },
    });
    const post = {
      stdout: JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'mind the tests' },
      }),
    };
    const executor = new ScriptedExecutor({ post });
    const result = { exit_code: 0, stdout: 'x', stderr: '', timed_out: false, truncated: false };
    const ran = await runPostHooks(gates, executor, CODE, { result }, context);
    expect(ran.additionalContext).toEqual(['mind the tests']);
    expect(JSON.stringify(executor.ran[0]!.stdin)).toContain('"x"');
  });
});
