import { describe, expect, it } from 'vitest';
import { safeParseHooksConfig } from '../../../src/config/hooks-config.js';
import type { HandlerRun } from '../../../src/hooks/decision.js';
import { dialectOf } from '../../../src/hooks/dialects/index.js';
import { matchingHandlers } from '../../../src/hooks/hook-engine.js';
import type { ToolCall } from '../../../src/tools/types.js';

const run = (stdout: string, extra: Partial<HandlerRun> = {}): HandlerRun => ({
  exit_code: 0,
  timed_out: false,
  stdout,
  stderr: '',
  truncated: false,
  ...extra,
});
const open = { onError: 'allow' as const, timeoutSeconds: 10 };
const closed = { onError: 'deny' as const, timeoutSeconds: 10 };
const context = (call: ToolCall) => ({ environmentId: 'env_1', callId: 'call_1', call });
const bash = (code: string): ToolCall => ({ name: 'code_execution', args: { code } });
const write: ToolCall = { name: 'write_file', args: { path: 'a.txt', content: 'hi' } };
const read: ToolCall = { name: 'read_file', args: { path: 'src/x.ts' } };
const replace: ToolCall = {
  name: 'replace_file_content',
  args: { TargetFile: 'a.txt', TargetContent: 'x', ReplacementContent: 'y' },
};

describe('codex', () => {
  const codex = dialectOf('codex');
  it('shows shell calls, reads and searches as Bash, edits as apply_patch (also matched as Write/Edit)', () => {
    expect(codex.prePayload(context(bash('ls')))).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'call_1',
      cwd: '/workspace',
      transcript_path: null,
      permission_mode: 'default',
    });
    expect(codex.prePayload(context(read))).toMatchObject({
      tool_name: 'Bash',
      tool_input: { command: "cat -- '/workspace/src/x.ts'" },
    });
    const patch = codex.prePayload(context(write)) as { tool_input: { command: string } };
    expect(patch.tool_input.command).toBe(
      '*** Begin Patch\n*** Add File: /workspace/a.txt\n+hi\n*** End Patch\n',
    );
    expect(codex.aliases!(replace)).toEqual(['Write', 'Edit']);
  });
  it('blocks only on exit 2 with a reason, deny with a reason, or decision:block with a reason', () => {
    expect(codex.decidePre(run('', { exit_code: 2, stderr: 'no\n' }), open)).toMatchObject({
      outcome: 'deny',
      reason: 'no',
    });
    expect(codex.decidePre(run('', { exit_code: 2 }), open)).toMatchObject({
      outcome: 'error',
      blocks: false,
    });
    const deny = (reason?: string) =>
      JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          ...(reason ? { permissionDecisionReason: reason } : {}),
        },
      });
    expect(codex.decidePre(run(deny('nope')), open)).toMatchObject({
      outcome: 'deny',
      reason: 'nope',
    });
    expect(codex.decidePre(run(deny()), open)).toMatchObject({
      outcome: 'unrecognized',
      blocks: false,
    });
    expect(codex.decidePre(run('{"decision":"block","reason":"old"}'), open)).toMatchObject({
      outcome: 'deny',
      reason: 'old',
    });
  });
  it('what Codex does not support fails open, and closed under on_error deny', () => {
    const ask = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}';
    expect(codex.decidePre(run(ask), open)).toMatchObject({
      outcome: 'unrecognized',
      blocks: false,
    });
    expect(codex.decidePre(run(ask), closed)).toMatchObject({ blocks: true });
    expect(codex.decidePre(run('{"continue":false}'), open).reason).toMatch(/continue:false/);
    expect(codex.decidePre(run('{"decision":'), open).reason).toMatch(/invalid pre-tool-use JSON/);
    expect(codex.decidePre(run('just text'), closed)).toMatchObject({ outcome: 'allow' });
  });
  it('allow with updatedInput rewrites a shell command; other rewrites cannot be carried back', () => {
    const answer = codex.decidePre(
      run(
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo safe"}}}',
      ),
      open,
    );
    expect(answer).toMatchObject({ outcome: 'allow', updatedInput: { command: 'echo safe' } });
    expect(codex.mapBack!({ command: 'echo safe' }, bash('rm -rf /'))).toEqual({
      name: 'code_execution',
      args: { code: 'echo safe', language: 'bash' },
    });
    expect(codex.mapBack!({ command: 'other' }, write)).toMatchObject({ error: /apply_patch/ });
  });
});

describe('copilot', () => {
  it('camelCase events get toolName and toolArgs as a JSON string; PascalCase ones tool_name/tool_input', () => {
    const camel = dialectOf('copilot', 'preToolUse').prePayload(context(bash('ls'))) as Record<
      string,
      unknown
    >;
    expect(camel).toMatchObject({ toolName: 'bash', cwd: '/workspace' });
    expect(JSON.parse(camel.toolArgs as string)).toEqual({ command: 'ls' });
    expect(typeof camel.timestamp).toBe('number');
    expect(dialectOf('copilot', 'PreToolUse').prePayload(context(write))).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'create',
      tool_input: { path: '/workspace/a.txt', file_text: 'hi' },
    });
  });
  it('permissionDecision deny/allow/ask and modifiedArgs; every failure (exit 2 too) lets the call through', () => {
    const copilot = dialectOf('copilot', 'preToolUse');
    expect(
      copilot.decidePre(run('{"permissionDecision":"deny","permissionDecisionReason":"no"}'), open),
    ).toMatchObject({ outcome: 'deny', reason: 'no' });
    expect(copilot.decidePre(run('{"permissionDecision":"ask"}'), open).outcome).toBe('ask');
    expect(
      copilot.decidePre(
        run('{"permissionDecision":"allow","modifiedArgs":{"command":"ls -a"}}'),
        open,
      ),
    ).toMatchObject({ outcome: 'allow', updatedInput: { command: 'ls -a' } });
    expect(copilot.decidePre(run('', { exit_code: 2, stderr: 'x' }), open)).toMatchObject({
      outcome: 'error',
      blocks: false,
    });
    expect(copilot.decidePre(run(''), open).outcome).toBe('allow');
    expect(copilot.mapBack!({ command: 'ls -a' }, bash('ls'))).toMatchObject({
      args: { code: 'ls -a' },
    });
  });
});

describe('cursor', () => {
  it('each event has its own stdin and fires only for its calls', () => {
    const shell = dialectOf('cursor', 'beforeShellExecution');
    expect(shell.fires!(bash('ls'))).toBe(true);
    expect(shell.fires!(write)).toBe(false);
    expect(shell.prePayload(context(bash('ls')))).toMatchObject({
      hook_event_name: 'beforeShellExecution',
      command: 'ls',
      cwd: '/workspace',
      workspace_roots: ['/workspace'],
    });
    expect(dialectOf('cursor', 'beforeReadFile').prePayload(context(read))).toMatchObject({
      file_path: '/workspace/src/x.ts',
    });
    expect(dialectOf('cursor', 'beforeMCPExecution').fires!(bash('ls'))).toBe(false);
    expect(dialectOf('cursor', 'preToolUse').prePayload(context(replace))).toMatchObject({
      tool_name: 'Edit',
      tool_input: { file_path: '/workspace/a.txt', old_string: 'x', new_string: 'y' },
    });
    expect(
      dialectOf('cursor', 'preToolUse').toolName({ name: 'delete_file', args: { path: 'a' } }),
    ).toBe('Delete');
    expect(dialectOf('cursor', 'preToolUse').aliases!(replace)).toEqual(['StrReplace']);
  });
  it('permission deny/ask/allow with agent_message; exit 2 blocks; failClosed is on_error deny', () => {
    const cursor = dialectOf('cursor', 'beforeShellExecution');
    expect(
      cursor.decidePre(run('{"permission":"deny","user_message":"u","agent_message":"a"}'), open),
    ).toMatchObject({ outcome: 'deny', reason: 'a' });
    expect(cursor.decidePre(run('{"permission":"ask","user_message":"u"}'), open)).toMatchObject({
      outcome: 'ask',
      reason: 'u',
    });
    expect(cursor.decidePre(run('', { exit_code: 2, stderr: 'blocked' }), open)).toMatchObject({
      outcome: 'deny',
      reason: 'blocked',
    });
    expect(cursor.decidePre(run('', { exit_code: 1 }), open).blocks).toBe(false);
    expect(cursor.decidePre(run('', { exit_code: 1 }), closed).blocks).toBe(true);
  });
});

describe('gemini-cli', () => {
  const gemini = dialectOf('gemini-cli');
  it("shows Gemini CLI's tools and stdin", () => {
    expect(gemini.prePayload(context(bash('ls')))).toMatchObject({
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'ls' },
      cwd: '/workspace',
    });
    expect(gemini.prePayload(context(replace))).toMatchObject({
      tool_name: 'replace',
      tool_input: { file_path: '/workspace/a.txt', old_string: 'x', new_string: 'y' },
    });
    expect(gemini.env()).toMatchObject({ GEMINI_PROJECT_DIR: '/workspace' });
  });
  it('decision deny/block/ask/allow, exit 2, continue:false; other exits are warnings', () => {
    expect(gemini.decidePre(run('{"decision":"block","reason":"r"}'), open)).toMatchObject({
      outcome: 'deny',
      reason: 'r',
    });
    expect(gemini.decidePre(run('{"decision":"ask"}'), open).outcome).toBe('ask');
    expect(gemini.decidePre(run('{"continue":false,"stopReason":"stop"}'), open).reason).toBe(
      'stop',
    );
    expect(gemini.decidePre(run('', { exit_code: 2, stderr: 'why' }), open).reason).toBe('why');
    expect(gemini.decidePre(run('', { exit_code: 1 }), open)).toMatchObject({
      outcome: 'error',
      blocks: false,
    });
  });
  it('hookSpecificOutput.tool_input is merged over the call', () => {
    const answer = gemini.decidePre(
      run('{"decision":"allow","hookSpecificOutput":{"tool_input":{"content":"redacted"}}}'),
      open,
    );
    expect(answer.updatedInput).toEqual({ content: 'redacted' });
    expect(gemini.mapBack!({ content: 'redacted' }, write)).toEqual({
      name: 'write_file',
      args: { path: 'a.txt', content: 'redacted' },
    });
  });
});

describe('openhands', () => {
  const openhands = dialectOf('openhands');
  it("the SDK's HookEvent on stdin", () => {
    expect(openhands.prePayload(context(bash('ls')))).toMatchObject({
      event_type: 'PreToolUse',
      tool_name: 'terminal',
      tool_input: { command: 'ls' },
      working_dir: '/workspace',
      metadata: {},
    });
    expect(openhands.prePayload(context(write))).toMatchObject({
      tool_name: 'file_editor',
      tool_input: { command: 'create', path: '/workspace/a.txt', file_text: 'hi' },
    });
  });
  it('exit 2 and deny/block block (the JSON reason first); other failures let the call through', () => {
    expect(
      openhands.decidePre(
        run('{"decision":"deny","reason":"json reason"}', { exit_code: 2 }),
        open,
      ),
    ).toMatchObject({ outcome: 'deny', reason: 'json reason' });
    expect(openhands.decidePre(run('{"decision":"block"}'), open).outcome).toBe('deny');
    expect(openhands.decidePre(run('{"continue":false}'), open).outcome).toBe('deny');
    expect(openhands.decidePre(run('{"decision":"approve"}'), closed).outcome).toBe('allow');
    expect(openhands.decidePre(run('', { exit_code: 1 }), open).blocks).toBe(false);
  });
});

describe('hooks.json groups of the new dialects', () => {
  const parse = (config: unknown) => safeParseHooksConfig(JSON.stringify(config));
  const rules = [{ hooks: [{ type: 'command', command: 'true' }] }];
  it("takes each agent's event keys, keeps the key per rule, and refuses another agent's", () => {
    const parsed = parse({
      c: {
        dialect: 'cursor',
        beforeShellExecution: rules,
        afterFileEdit: rules,
        preToolUse: rules,
      },
      g: { dialect: 'gemini-cli', BeforeTool: rules },
      p: { dialect: 'copilot', preToolUse: rules, PostToolUse: rules },
    });
    expect(parsed.success).toBe(true);
    if (!parsed.success) return;
    const cursor = parsed.config.groups[0]!;
    expect(cursor.pre_tool_execution.map((rule) => rule.event)).toEqual([
      'beforeShellExecution',
      'preToolUse',
    ]);
    expect(cursor.post_tool_execution[0]!.path).toBe('c.afterFileEdit[0]');
    const refused = parse({ g: { dialect: 'gemini-cli', PreToolUse: rules } });
    expect(refused.success || refused.problems[0]).toMatchObject({
      path: 'g.PreToolUse',
      message: expect.stringMatching(/not a gemini-cli event.*BeforeTool/) as string,
    });
    const without = parse({ g: { BeforeTool: rules } });
    expect(without.success || without.problems[0]!.message).toMatch(/"gemini-cli"/);
  });
  it("a Cursor beforeShellExecution rule fires for shell calls only; Codex's Write matcher fires for apply_patch", () => {
    const parsed = parse({
      c: { dialect: 'cursor', beforeShellExecution: rules },
      x: { dialect: 'codex', PreToolUse: [{ matcher: 'Write', hooks: rules[0]!.hooks }] },
    });
    if (!parsed.success) throw new Error(JSON.stringify(parsed.problems));
    const groups = (call: ToolCall) =>
      matchingHandlers(parsed.config, 'pre_tool_execution', call).map((m) => m.group.name);
    expect(groups(bash('ls'))).toEqual(['c']);
    expect(groups(write)).toEqual(['x']);
    expect(groups(read)).toEqual([]);
  });
});
