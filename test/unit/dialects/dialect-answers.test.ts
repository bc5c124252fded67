import { describe, expect, it } from 'vitest';
import { safeParseHooksConfig } from '../../../src/config/hooks-config.js';
import type { HandlerRun } from '../../../src/hooks/decision.js';
import { decidePre } from '../../../src/hooks/decision.js';
import { antigravityCliDialect } from '../../../src/hooks/dialects/antigravity-cli.js';
import { claudeCodeDialect, sessionIdOf } from '../../../src/hooks/dialects/claude-code.js';
import {
  fromClaudeCode,
  toAntigravityCli,
  toClaudeCode,
} from '../../../src/hooks/dialects/foreign-tools.js';

const run = (stdout: string, extra: Partial<HandlerRun> = {}): HandlerRun => ({
  exit_code: 0,
  timed_out: false,
  stdout,
  stderr: '',
  truncated: false,
  ...extra,
});
const allowOnError = { onError: 'allow' as const, timeoutSeconds: 10 };
const denyOnError = { onError: 'deny' as const, timeoutSeconds: 10 };
const pre = (hso: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  run(JSON.stringify({ ...top, hookSpecificOutput: { hookEventName: 'PreToolUse', ...hso } }));

describe('Claude Code answers', () => {
  const decide = claudeCodeDialect.decidePre;
  it('exit 2 blocks with stderr as the reason, whatever stdout says', () => {
    const decision = decide(
      run('{"hookSpecificOutput":{"permissionDecision":"allow"}}', {
        exit_code: 2,
        stderr: 'rm -rf is not allowed\n',
      }),
      allowOnError,
    );
    expect(decision).toMatchObject({
      outcome: 'deny',
      blocks: true,
      reason: 'rm -rf is not allowed',
    });
    expect(decision.rawAnswer).toBe('rm -rf is not allowed\n');
  });
  it('permissionDecision deny, allow and ask', () => {
    expect(
      decide(pre({ permissionDecision: 'deny', permissionDecisionReason: 'no' }), allowOnError),
    ).toMatchObject({ outcome: 'deny', blocks: true, reason: 'no' });
    expect(decide(pre({ permissionDecision: 'allow' }), denyOnError)).toMatchObject({
      outcome: 'allow',
      blocks: false,
    });
    expect(
      decide(pre({ permissionDecision: 'ask', permissionDecisionReason: 'sure?' }), allowOnError),
    ).toMatchObject({ outcome: 'ask', blocks: false, reason: 'sure?' });
  });
  it('legacy decision "block" blocks with its reason; "approve" allows', () => {
    expect(decide(run('{"decision":"block","reason":"old style"}'), allowOnError)).toMatchObject({
      outcome: 'deny',
      blocks: true,
      reason: 'old style',
    });
    expect(decide(run('{"decision":"approve"}'), allowOnError)).toMatchObject({
      outcome: 'allow',
      blocks: false,
    });
  });
  it('continue: false stops the call with stopReason', () => {
    expect(decide(run('{"continue":false,"stopReason":"halt"}'), allowOnError)).toMatchObject({
      outcome: 'deny',
      reason: 'halt',
    });
  });
  it('exit 0 with no JSON is success; other exits follow docs/contract.md §6 and on_error', () => {
    expect(decide(run(''), denyOnError)).toMatchObject({ outcome: 'allow', blocks: false });
    expect(decide(run('just text'), denyOnError)).toMatchObject({
      outcome: 'allow',
      blocks: false,
    });
    expect(decide(run('', { exit_code: 1, stderr: 'boom' }), allowOnError)).toMatchObject({
      outcome: 'error',
      blocks: false,
    });
    expect(decide(run('', { exit_code: 1, stderr: 'boom' }), denyOnError)).toMatchObject({
      outcome: 'error',
      blocks: true,
    });
    expect(decide(pre({ permissionDecision: 'maybe' }), allowOnError)).toMatchObject({
      outcome: 'unrecognized',
      blocks: false,
    });
  });
  it('updatedInput and additionalContext are carried', () => {
    const decision = decide(
      pre({
        permissionDecision: 'allow',
        updatedInput: { command: 'ls' },
        additionalContext: 'note',
      }),
      allowOnError,
    );
    expect(decision.updatedInput).toEqual({ command: 'ls' });
    expect(decision.additionalContext).toBe('note');
  });
  it('a PostToolUse exit 2 or decision block becomes context for the model', () => {
    expect(
      claudeCodeDialect.decidePost(run('', { exit_code: 2, stderr: 'lint failed' }), allowOnError),
    ).toMatchObject({ outcome: 'ok', additionalContext: 'lint failed' });
    expect(
      claudeCodeDialect.decidePost(run('{"decision":"block","reason":"fix it"}'), allowOnError),
    ).toMatchObject({ outcome: 'ok', additionalContext: 'fix it' });
  });
  it('session_id is a stable UUID per environment', () => {
    expect(sessionIdOf('env_a')).toBe(sessionIdOf('env_a'));
    expect(sessionIdOf('env_a')).not.toBe(sessionIdOf('env_b'));
    expect(sessionIdOf('env_a')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe('Antigravity CLI answers', () => {
  const decide = antigravityCliDialect.decidePre;
  it.each([
    ['{"decision":"deny","reason":"x"}', 'deny', true, undefined],
    ['{"decision":"allow"}', 'allow', false, undefined],
    ['{"decision":"ask"}', 'ask', false, false],
    ['{"decision":"force_ask"}', 'ask', false, true],
    ['{}', 'deny', true, undefined],
    ['{"decision":""}', 'deny', true, undefined],
  ])('%s → %s', (stdout, outcome, blocks, force) => {
    const decision = decide(run(stdout), allowOnError);
    expect(decision).toMatchObject({ outcome, blocks });
    expect(decision.force).toBe(force);
  });
  it('anything else follows docs/contract.md §6', () => {
    expect(decide(run(''), allowOnError)).toMatchObject({ outcome: 'unrecognized', blocks: false });
    expect(decide(run('nope'), denyOnError)).toMatchObject({
      outcome: 'unrecognized',
      blocks: true,
    });
    expect(decide(run('{"decision":"later"}'), allowOnError)).toMatchObject({
      outcome: 'unrecognized',
      blocks: false,
    });
  });
});

describe('the Gemini format', () => {
  it('{"decision": "ask"} is a decision of its own', () => {
    expect(decidePre(run('{"decision":"ask","reason":"check"}'), denyOnError)).toMatchObject({
      outcome: 'ask',
      blocks: false,
      reason: 'check',
    });
  });
});

describe('tool names both ways', () => {
  it('hookbox → Claude Code', () => {
    expect(toClaudeCode({ name: 'code_execution', args: { code: 'ls' } })).toEqual({
      name: 'Bash',
      input: { command: 'ls' },
    });
    expect(
      toClaudeCode({ name: 'code_execution', args: { code: "print('a')", language: 'python' } })
        .input.command,
    ).toBe(`python3 -c 'print('\\''a'\\'')'`);
    expect(toClaudeCode({ name: 'read_file', args: { path: 'a.txt' } })).toEqual({
      name: 'Read',
      input: { file_path: '/workspace/a.txt' },
    });
    expect(
      toClaudeCode({
        name: 'view_file',
        args: { AbsolutePath: '/workspace/a', StartLine: 3, EndLine: 5 },
      }).input,
    ).toEqual({ file_path: '/workspace/a', offset: 3, limit: 3 });
    expect(
      toClaudeCode({ name: 'write_to_file', args: { TargetFile: 'b', CodeContent: 'x' } }),
    ).toEqual({ name: 'Write', input: { file_path: '/workspace/b', content: 'x' } });
    expect(
      toClaudeCode({
        name: 'replace_file_content',
        args: {
          TargetFile: 'c',
          StartLine: 1,
          EndLine: 1,
          TargetContent: 'o',
          ReplacementContent: 'n',
        },
      }),
    ).toEqual({
      name: 'Edit',
      input: { file_path: '/workspace/c', old_string: 'o', new_string: 'n' },
    });
    expect(toClaudeCode({ name: 'list_dir', args: { DirectoryPath: '.' } }).name).toBe('LS');
    expect(
      toClaudeCode({ name: 'find_by_name', args: { SearchDirectory: '.', Pattern: '*.py' } }).name,
    ).toBe('Glob');
    expect(
      toClaudeCode({ name: 'grep_search', args: { SearchPath: '.', Query: 'a.b' } }).input.pattern,
    ).toBe('a\\.b');
    expect(toClaudeCode({ name: 'delete_file', args: { path: 'x' } })).toEqual({
      name: 'Bash',
      input: { command: "rm -- '/workspace/x'" },
    });
  });
  it('hookbox → Antigravity CLI', () => {
    expect(toAntigravityCli({ name: 'code_execution', args: { code: 'ls' } })).toEqual({
      name: 'run_command',
      input: { CommandLine: 'ls', Cwd: '/workspace' },
    });
    expect(toAntigravityCli({ name: 'read_file', args: { path: 'a' } })).toEqual({
      name: 'view_file',
      input: { AbsolutePath: '/workspace/a' },
    });
    expect(toAntigravityCli({ name: 'write_file', args: { path: 'a', content: 'c' } }).name).toBe(
      'write_to_file',
    );
    expect(toAntigravityCli({ name: 'list_files', args: { path: '.' } }).name).toBe('list_dir');
  });
  it('Claude Code → hookbox: only what the hook changed comes back', () => {
    const call = { name: 'code_execution', args: { code: 'print(1)', language: 'python' } };
    expect(fromClaudeCode({ command: "python3 -c 'print(1)'" }, call)).toEqual(call);
    expect(fromClaudeCode({ command: 'echo safe' }, call)).toEqual({
      name: 'code_execution',
      args: { code: 'echo safe', language: 'bash' },
    });
    expect(
      fromClaudeCode(
        { file_path: '/workspace/other.txt' },
        { name: 'write_file', args: { path: 'a.txt', content: 'x' } },
      ),
    ).toEqual({ name: 'write_file', args: { path: '/workspace/other.txt', content: 'x' } });
    expect(
      fromClaudeCode({ command: 'rm -rf /' }, { name: 'delete_file', args: { path: 'x' } }),
    ).toHaveProperty('error');
  });
});

describe('hooks.json dialect groups', () => {
  const problems = (config: unknown) => {
    const result = safeParseHooksConfig(JSON.stringify(config));
    return result.success ? [] : result.problems;
  };
  const rules = [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }];
  it('accepts a claude-code group and keeps its dialect', () => {
    const result = safeParseHooksConfig(
      JSON.stringify({ g: { dialect: 'claude-code', PreToolUse: rules } }),
    );
    expect(result.success && result.config.groups[0]!.dialect).toBe('claude-code');
  });
  it('refuses an unknown dialect, naming the field', () => {
    expect(problems({ g: { dialect: 'windsurf', PreToolUse: rules } })).toEqual([
      {
        path: 'g.dialect',
        message: expect.stringMatching(
          /unknown dialect "windsurf".*"claude-code" or .*"openhands"/,
        ) as string,
      },
    ]);
  });
  it('refuses Gemini event keys in a dialect group, and dialect keys without a dialect', () => {
    expect(problems({ g: { dialect: 'antigravity-cli', pre_tool_execution: rules } })).toEqual([
      {
        path: 'g.pre_tool_execution',
        message: expect.stringMatching(
          /uses that agent's event names \(PreToolUse, PostToolUse\)/,
        ) as string,
      },
    ]);
    expect(problems({ g: { PreToolUse: rules } })[0]).toMatchObject({
      path: 'g.PreToolUse',
      message: expect.stringMatching(/"dialect"/) as string,
    });
  });
  it('refuses an event hookbox has no counterpart of', () => {
    expect(problems({ g: { dialect: 'claude-code', Stop: rules } })[0]).toMatchObject({
      path: 'g.Stop',
      message: expect.stringMatching(/no counterpart/) as string,
    });
  });
});
