import { describe, expect, it } from 'vitest';
import type { HandlerRun } from '../../../src/hooks/decision.js';
import { dialectOf } from '../../../src/hooks/dialects/index.js';

/**
 * Gemini CLI's answers as its current runner reads them (docs/agent-dialects.md, "Gemini CLI"):
 * stdout, else stderr, whatever the exit code; JSON there is the answer; plain text blocks on codes
 * other than 0 and 1; exit 2 always blocks (docs/dialects.md, "Decisions where the issue was silent").
 */
const decide = dialectOf('gemini-cli').decidePre;
const run = (extra: Partial<HandlerRun>): HandlerRun => ({
  exit_code: 0,
  timed_out: false,
  stdout: '',
  stderr: '',
  truncated: false,
  ...extra,
});
const open = { onError: 'allow' as const, timeoutSeconds: 10 };
const closed = { onError: 'deny' as const, timeoutSeconds: 10 };
const deny = (stdout: string, reason: string) =>
  JSON.stringify({ decision: 'deny', reason }) + stdout;

describe('Gemini CLI answers: which stream is read', () => {
  it('stdout wins over stderr, on exit 2 as on exit 0', () => {
    const both = run({
      exit_code: 2,
      stdout: deny('\n', 'said on stdout'),
      stderr: 'said on stderr',
    });
    expect(decide(both, open)).toMatchObject({ outcome: 'deny', reason: 'said on stdout' });
    const text = run({ exit_code: 2, stdout: 'plain words\n', stderr: 'said on stderr' });
    expect(decide(text, open)).toMatchObject({ outcome: 'deny', reason: 'plain words' });
  });
  it('with stdout empty, stderr is read: its JSON reason, else its text', () => {
    const json = run({ exit_code: 2, stderr: deny('\n', 'Potential secret detected') });
    expect(decide(json, open)).toMatchObject({
      outcome: 'deny',
      reason: 'Potential secret detected',
    });
    const text = run({ exit_code: 2, stderr: '  Blocked: --admin\nuse a PR  \n' });
    expect(decide(text, open)).toMatchObject({
      outcome: 'deny',
      reason: 'Blocked: --admin\nuse a PR',
    });
  });
  it('a JSON string holding the answer is read too (the runner parses twice)', () => {
    const twice = run({ stdout: JSON.stringify(deny('', 'twice')) });
    expect(decide(twice, open)).toMatchObject({ outcome: 'deny', reason: 'twice' });
  });
});

describe('Gemini CLI answers: exit codes', () => {
  it('exit 2 always blocks: silent, or JSON without a deny', () => {
    expect(decide(run({ exit_code: 2 }), open)).toMatchObject({ outcome: 'deny', blocks: true });
    const claudeShaped = JSON.stringify({
      hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'x' },
    });
    expect(decide(run({ exit_code: 2, stdout: claudeShaped }), open)).toMatchObject({
      outcome: 'deny',
      reason: 'Blocked by a BeforeTool hook. (exit 2)',
    });
  });
  it('other codes but 1 block with plain text; silent, they are warnings', () => {
    const crash = run({ exit_code: 127, stderr: 'jq: command not found' });
    expect(decide(crash, open)).toMatchObject({ outcome: 'deny', reason: 'jq: command not found' });
    expect(decide(run({ exit_code: 3 }), open)).toMatchObject({ outcome: 'error', blocks: false });
    expect(decide(run({ exit_code: 3 }), closed)).toMatchObject({ outcome: 'error', blocks: true });
  });
  it('exit 1 is a warning unless its JSON denies or asks', () => {
    expect(decide(run({ exit_code: 1, stderr: 'oops' }), open)).toMatchObject({
      outcome: 'error',
      blocks: false,
    });
    expect(decide(run({ exit_code: 1, stdout: deny('', 'json wins') }), open)).toMatchObject({
      outcome: 'deny',
      reason: 'json wins',
    });
    expect(decide(run({ exit_code: 1, stdout: '{"decision":"ask"}' }), open).outcome).toBe('ask');
    expect(decide(run({ exit_code: 1, stdout: '{"decision":"allow"}' }), open).outcome).toBe(
      'error',
    );
  });
  it('exit 0: plain text or nothing allows; timeouts let the call through unless on_error deny', () => {
    expect(decide(run({ stdout: 'checked 3 files' }), open)).toMatchObject({ outcome: 'allow' });
    expect(decide(run({ stderr: 'debug line' }), open)).toMatchObject({ outcome: 'allow' });
    expect(decide(run({ exit_code: null, timed_out: true }), open)).toMatchObject({
      outcome: 'timeout',
      blocks: false,
    });
    expect(decide(run({ exit_code: null, timed_out: true }), closed).blocks).toBe(true);
  });
});

describe('Gemini CLI AfterTool answers: what is added after the result', () => {
  const after = dialectOf('gemini-cli').decidePost;
  it('decision "deny" and its alias "block" both withhold the result with their reason', () => {
    for (const decision of ['deny', 'block']) {
      const said = JSON.stringify({ decision, reason: 'output held a token' });
      expect(after(run({ stdout: said }), open)).toMatchObject({
        outcome: 'ok',
        reason: 'output held a token',
        additionalContext: 'Tool result blocked: output held a token',
      });
    }
  });
  it('exit 2 with text on stderr, or JSON on stderr, withholds the result with what it says', () => {
    expect(after(run({ exit_code: 2, stderr: 'secret in output\n' }), open)).toMatchObject({
      reason: 'secret in output',
      additionalContext: 'Tool result blocked: secret in output',
    });
    const json = run({ exit_code: 2, stderr: deny('\n', 'said as JSON') });
    expect(after(json, open)).toMatchObject({ reason: 'said as JSON' });
  });
  it('continue: false gives its stopReason; additionalContext follows the reason', () => {
    const stop = JSON.stringify({
      continue: false,
      stopReason: 'stop here',
      hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: 'see the log' },
    });
    expect(after(run({ stdout: stop }), open)).toMatchObject({
      reason: 'stop here',
      additionalContext: 'Tool result blocked: stop here\nsee the log',
    });
  });
  it('allow or no decision adds only additionalContext; exit 1 is a warning; a timeout an error', () => {
    const context = JSON.stringify({
      hookSpecificOutput: { additionalContext: 'lint: 2 warnings' },
    });
    expect(after(run({ stdout: context }), open)).toMatchObject({
      outcome: 'ok',
      reason: null,
      additionalContext: 'lint: 2 warnings',
    });
    expect(after(run({ stdout: '{"decision":"allow"}' }), open).additionalContext).toBeUndefined();
    expect(after(run({ exit_code: 1, stderr: 'oops' }), open)).toMatchObject({ outcome: 'error' });
    expect(after(run({ exit_code: null, timed_out: true }), open).outcome).toBe('timeout');
  });
});
