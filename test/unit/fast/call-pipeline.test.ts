// The call pipeline through a real Environment over the in-memory agent (docs/testing.md, "The
// fast tier"): pre hooks allow, deny and rewrite, post hooks, the one request of a gated call,
// tool errors and a lost agent, in milliseconds.
import { afterEach, describe, expect, it } from 'vitest';
import { execResultOf } from '../../../src/tools/results.js';
import { answers, memoryEnvironment, type MemoryEnvironment } from '../fakes/memory-environment.js';

const gate = (command: string, matcher = 'code_execution') => ({
  g: { pre_tool_execution: [{ matcher, hooks: [{ type: 'command', command, timeout: 2 }] }] },
});

let made: MemoryEnvironment | undefined;
afterEach(async () => {
  await made?.close();
  made = undefined;
});

describe('the call pipeline over the in-memory agent', () => {
  it('runs an allowed call once, in the pre hook’s own request, and records it', async () => {
    made = await memoryEnvironment({
      hooksJson: gate('allow'),
      agent: { hooks: { allow: answers({ decision: 'allow' }) } },
    });
    const outcome = await made.environment.call({
      name: 'code_execution',
      args: { code: 'echo hi' },
    });
    expect(outcome.blocked).toBe(false);
    expect(execResultOf(outcome).stdout).toBe('hi\n');
    expect(outcome.hooks.map((h) => [h.event, h.outcome])).toEqual([
      ['pre_tool_execution', 'allow'],
    ]);
    // docs/gates.md, "One request per gated call": the code went with the hook, no run_code after.
    expect(made.agent.requestsOf('run_hook')).toHaveLength(1);
    expect(made.agent.requestsOf('run_hook')[0]!.then_run_code?.code).toBe('echo hi');
    expect(made.agent.requestsOf('run_code')).toHaveLength(0);
    const calls = made.audit().filter((entry) => entry.kind === 'tool_call');
    expect(calls).toHaveLength(1);
  });

  it('blocks a denied call: the code never runs, the reason is the result', async () => {
    made = await memoryEnvironment({
      hooksJson: gate('deny'),
      agent: { hooks: { deny: answers({ decision: 'deny', reason: 'not here' }) } },
    });
    const outcome = await made.environment.call({
      name: 'code_execution',
      args: { code: 'echo no > /workspace/x' },
    });
    expect(outcome).toMatchObject({
      blocked: true,
      reason: 'not here',
      is_error: true,
      result: null,
    });
    expect(made.agent.files.read('x')).toBeUndefined();
    expect(made.agent.requestsOf('run_code')).toHaveLength(0);
  });

  it('gives each call its own id, the same in the hook’s env and the outcome', async () => {
    const seen: string[] = [];
    made = await memoryEnvironment({
      hooksJson: gate('note'),
      agent: {
        hooks: {
          note: ({ env }) => {
            seen.push(env.HOOKBOX_CALL_ID ?? '');
            return { stdout: '{"decision":"allow"}' };
          },
        },
      },
    });
    const first = await made.environment.call({ name: 'code_execution', args: { code: 'true' } });
    const second = await made.environment.call({ name: 'code_execution', args: { code: 'true' } });
    expect(seen).toEqual([first.call_id, second.call_id]);
    expect(first.call_id).not.toBe(second.call_id);
    // A prestart asked for the next call carries the id that call then gets.
    const prestarts = made.agent.requestsOf('prestart_hooks');
    expect(JSON.stringify(prestarts)).toContain(second.call_id);
  });

  it('runs a rewritten call (updatedInput) and keeps the original args', async () => {
    made = await memoryEnvironment({
      hooksJson: {
        g: {
          dialect: 'claude-code',
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'rewrite' }] }],
        },
      },
      agent: {
        hooks: {
          rewrite: answers({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'allow',
              updatedInput: { command: 'echo safe' },
            },
          }),
        },
      },
    });
    const outcome = await made.environment.call({
      name: 'code_execution',
      args: { code: 'echo risky' },
    });
    expect(outcome.original_args).toEqual({ code: 'echo risky' });
    expect(outcome.tool_call.args).toMatchObject({ code: 'echo safe' });
    expect(execResultOf(outcome).stdout).toBe('safe\n');
    // A dialect hook takes the usual two requests (docs/gates.md).
    expect(made.agent.requestsOf('run_code').map((r) => r.code)).toEqual(['echo safe']);
  });

  it('runs post hooks with the result, and a failing tool is an error with its text', async () => {
    const posted: unknown[] = [];
    made = await memoryEnvironment({
      hooksJson: {
        g: {
          post_tool_execution: [{ matcher: '*', hooks: [{ type: 'command', command: 'post' }] }],
        },
      },
      agent: {
        hooks: {
          post: ({ stdin }) => {
            posted.push(JSON.parse(stdin));
            return { stdout: '{}' };
          },
        },
      },
    });
    const outcome = await made.environment.call({
      name: 'code_execution',
      args: { code: 'nosuchcommand' },
    });
    expect(outcome.is_error).toBe(true);
    expect(execResultOf(outcome).exit_code).toBe(127);
    expect(outcome.error).toMatch(/command not found[\s\S]*exit code 127/);
    expect(outcome.hooks.map((h) => h.event)).toEqual(['post_tool_execution']);
    expect(posted).toHaveLength(1);
    expect(JSON.stringify(posted[0])).toContain('exit code 127');
  });

  it('runs the file tools against the agent’s files', async () => {
    made = await memoryEnvironment({ hooksJson: {}, agent: { files: { 'a.txt': 'one\n' } } });
    const read = await made.environment.call({ name: 'read_file', args: { path: 'a.txt' } });
    expect(read.result).toEqual({ content: 'one\n' });
    const missing = await made.environment.call({ name: 'read_file', args: { path: 'b.txt' } });
    expect(missing).toMatchObject({ is_error: true, error: 'b.txt: no such file' });
  });

  it('fails a call whose agent is gone, naming the container’s state', async () => {
    made = await memoryEnvironment({ hooksJson: {} });
    made.client.kill(made.containerId);
    await expect(
      made.environment.call({ name: 'code_execution', args: { code: 'true' } }),
    ).rejects.toThrow(/exit code 137/);
  });
});
