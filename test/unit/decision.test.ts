import { describe, expect, it } from 'vitest';
import { decidePost, decidePre, type HandlerRun } from '../../src/hooks/decision.js';

const run = (stdout: string, extra: Partial<HandlerRun> = {}): HandlerRun => ({
  exit_code: 0,
  timed_out: false,
  stdout,
  stderr: '',
  truncated: false,
  ...extra,
});
const allowOnError = { onError: 'allow' as const, timeoutSeconds: 5 };
const denyOnError = { onError: 'deny' as const, timeoutSeconds: 5 };

describe('pre decisions: only an explicit deny blocks', () => {
  it('deny blocks with its reason, or a default reason', () => {
    expect(decidePre(run('{"decision":"deny","reason":"no"}'), allowOnError)).toEqual({
      outcome: 'deny',
      blocks: true,
      reason: 'no',
    });
    expect(decidePre(run('  {"decision": "deny"}\n'), allowOnError).blocks).toBe(true);
    expect(decidePre(run('{"decision":"deny"}'), allowOnError).reason).toMatch(/Blocked/);
  });
  it.each([
    ['allow', '{"decision":"allow"}', 'allow'],
    ['other JSON', '{"ok":true}', 'unrecognized'],
    ['{}', '{}', 'unrecognized'],
    ['a JSON array', '[{"decision":"deny"}]', 'unrecognized'],
    ['DENY in capitals', '{"decision":"DENY"}', 'unrecognized'],
    ['plain text', 'deny', 'unrecognized'],
    ['empty', '', 'unrecognized'],
    ['two objects', '{"decision":"deny"}\n{"decision":"deny"}', 'unrecognized'],
  ])('%s allows (outcome %s) by default', (_name, stdout, outcome) => {
    const decision = decidePre(run(stdout), allowOnError);
    expect(decision.outcome).toBe(outcome);
    expect(decision.blocks).toBe(false);
  });
  it('under on_error deny, anything but an explicit allow blocks', () => {
    expect(decidePre(run('{"decision":"allow"}'), denyOnError).blocks).toBe(false);
    for (const stdout of ['{}', 'text', '', '{"decision":"maybe"}'])
      expect(decidePre(run(stdout), denyOnError).blocks).toBe(true);
  });
  it('a non-zero exit, a crash and a timeout are errors that allow unless on_error is deny', () => {
    const failures: [HandlerRun, string][] = [
      [run('{"decision":"deny"}', { exit_code: 1 }), 'error'],
      [run('', { exit_code: 139 }), 'error'],
      [run('', { exit_code: 137, timed_out: true }), 'timeout'],
      [run('', { exit_code: null, http_status: 500 }), 'error'],
      [run('', { exit_code: null, failure: 'connection refused' }), 'error'],
    ];
    for (const [failed, outcome] of failures) {
      expect(decidePre(failed, allowOnError)).toMatchObject({ outcome, blocks: false });
      expect(decidePre(failed, denyOnError)).toMatchObject({ outcome, blocks: true });
    }
  });
  it('truncated output is never a decision', () => {
    expect(decidePre(run('{"decision":"deny"}', { truncated: true }), allowOnError).blocks).toBe(
      false,
    );
  });
  it('a 2xx HTTP answer is read like stdout', () => {
    expect(
      decidePre(
        run('{"decision":"deny","reason":"r"}', { exit_code: null, http_status: 200 }),
        allowOnError,
      ).blocks,
    ).toBe(true);
  });
});

describe('post outcomes', () => {
  it('ok, error or timeout, whatever the output says', () => {
    expect(decidePost(run('{"decision":"deny"}'), allowOnError).outcome).toBe('ok');
    expect(decidePost(run('', { exit_code: 2 }), allowOnError).outcome).toBe('error');
    expect(decidePost(run('', { timed_out: true }), allowOnError).outcome).toBe('timeout');
  });
});
