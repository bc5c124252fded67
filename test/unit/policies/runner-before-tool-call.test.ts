import { describe, expect, it } from 'vitest';
import {
  deny,
  HookRunner,
  PolicyEnforcer,
  type BeforeToolCallResult,
  type Hook,
} from '../../../src/hooks/controller-hooks/index.js';
import type { ToolCall } from '../../../src/tools/types.js';
import { delay, toolCallScope } from './support.js';

const CALL: ToolCall = { name: 'code_execution', args: { code: 'ls', language: 'bash' } };

/** A pre-tool hook that logs its name and what it saw, then answers `answer`. */
function gate(
  name: string,
  log: string[],
  answer: (call: ToolCall) => BeforeToolCallResult = () => undefined,
): Hook {
  return {
    name,
    beforeToolCall(_context, call) {
      log.push(name);
      return answer(call);
    },
  };
}

describe('HookRunner.beforeToolCall: order and decisions', () => {
  it('runs hooks in registration order and lets the call through when none has an opinion', async () => {
    const log: string[] = [];
    const runner = new HookRunner([gate('first', log), gate('second', log), gate('third', log)]);
    const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
    expect(log).toEqual(['first', 'second', 'third']);
    expect(outcome).toMatchObject({
      blocked: false,
      reason: null,
      args: CALL.args,
      rewrittenBy: [],
    });
    expect(outcome.records.map((record) => [record.handler, record.outcome])).toEqual([
      ['first', 'allow'],
      ['second', 'allow'],
      ['third', 'allow'],
    ]);
  });

  it('short-circuits at the first refusal: later hooks do not run and are recorded as skipped', async () => {
    const log: string[] = [];
    const runner = new HookRunner([
      gate('observer', log),
      gate('refuser', log, () => ({ decision: 'deny', reason: 'no shell today' })),
      gate('later', log),
    ]);
    const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
    expect(log).toEqual(['observer', 'refuser']);
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toBe('no shell today');
    expect(outcome.records.map((record) => [record.handler, record.outcome])).toEqual([
      ['observer', 'allow'],
      ['refuser', 'deny'],
      ['later', 'skipped'],
    ]);
    expect(outcome.records[2]?.reason).toBe('not run: hook "refuser" already decided (deny)');
  });

  it('the first hook with an opinion wins: an allow ends the dispatch before a later deny', async () => {
    const log: string[] = [];
    const runner = new HookRunner([
      gate('allower', log, () => ({ decision: 'allow', reason: 'trusted tool' })),
      gate('denier', log, () => ({ decision: 'deny', reason: 'never' })),
    ]);
    const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
    expect(log).toEqual(['allower']);
    expect(outcome.blocked).toBe(false);
    expect(
      outcome.records.map((record) => [record.handler, record.outcome, record.reason]),
    ).toEqual([
      ['allower', 'allow', 'trusted tool'],
      ['denier', 'skipped', 'not run: hook "allower" already decided (allow)'],
    ]);
  });

  it('a deny without a reason still refuses, with a reason naming the hook', async () => {
    const silentDeny = {
      name: 'silent',
      beforeToolCall: () => ({ decision: 'deny' }),
    } as unknown as Hook;
    const outcome = await new HookRunner([silentDeny]).beforeToolCall(toolCallScope(), CALL);
    expect(outcome).toMatchObject({
      blocked: true,
      reason: 'the call was refused by hook "silent"',
    });
  });

  it('a PolicyEnforcer with no matching rule has no opinion, so the next hook decides', async () => {
    const log: string[] = [];
    const policy = new PolicyEnforcer({ name: 'no-writes', rules: [deny('write_file')] });
    const runner = new HookRunner([
      policy,
      gate('next', log, () => ({ decision: 'deny', reason: 'next said no' })),
    ]);
    const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
    expect(log).toEqual(['next']);
    expect(outcome.reason).toBe('next said no');
    // A policy is recorded under its own name, not the runner's "controller" group.
    expect(outcome.records[0]).toMatchObject({
      group: 'no-writes',
      handler: 'no-writes',
      type: 'policy',
      outcome: 'allow',
    });
    expect(outcome.records[1]).toMatchObject({ group: 'controller', handler: 'next' });
  });
});

describe('HookRunner.beforeToolCall: fail closed', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('vault unreachable');
      },
    ],
    ['rejects', () => Promise.reject(new Error('vault unreachable'))],
  ])(
    'a hook that %s refuses the call with a reason naming the hook, and later hooks are skipped',
    async (_how, answer) => {
      const log: string[] = [];
      const runner = new HookRunner([
        { name: 'secrets-gate', beforeToolCall: answer },
        gate('later', log),
      ]);
      const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
      expect(outcome.blocked).toBe(true);
      expect(outcome.reason).toBe(
        'hook "secrets-gate" failed, so the call is refused: vault unreachable',
      );
      expect(log).toEqual([]);
      expect(outcome.records.map((record) => record.outcome)).toEqual(['error', 'skipped']);
      expect(outcome.records[1]?.reason).toBe('not run: hook "secrets-gate" failed (error)');
    },
  );

  it('a hook that does not answer in time refuses, and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const slow: Hook = {
      name: 'slow',
      timeoutMs: 20,
      async beforeToolCall(context) {
        signal = context.signal;
        await delay(1_000);
        return { decision: 'allow' };
      },
    };
    const outcome = await new HookRunner([slow]).beforeToolCall(toolCallScope(), CALL);
    expect(outcome).toMatchObject({
      blocked: true,
      reason: 'hook "slow" did not decide within 20 ms, so the call is refused',
    });
    expect(outcome.records[0]?.outcome).toBe('timeout');
    expect(signal?.aborted).toBe(true);
  });

  it('takes the runner-wide timeout when a hook sets none', async () => {
    const slow: Hook = { name: 'slow', beforeToolCall: () => delay(1_000) };
    const outcome = await new HookRunner([slow], { hookTimeoutMs: 15 }).beforeToolCall(
      toolCallScope(),
      CALL,
    );
    expect(outcome.records[0]?.outcome).toBe('timeout');
    expect(outcome.blocked).toBe(true);
  });

  it.each([
    ['a misspelt key', { decison: 'deny', reason: 'x' }],
    ['an unknown decision', { decision: 'maybe' }],
    ['an empty object', {}],
    ['a string', 'deny'],
    ['arguments that are not an object', { args: ['rm', '-rf'] }],
    ['arguments that cannot be copied', { args: { callback: () => 1 } }],
  ])('an unrecognized answer (%s) refuses the call', async (_what, answer) => {
    const odd = { name: 'odd', beforeToolCall: () => answer } as unknown as Hook;
    const outcome = await new HookRunner([odd]).beforeToolCall(toolCallScope(), CALL);
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toBe(
      'hook "odd" returned something that is not a decision, so the call is refused',
    );
    expect(outcome.records[0]?.outcome).toBe('unrecognized');
  });

  it('a hook cannot change the call by mutating it: the attempt fails the hook, which refuses', async () => {
    const mutator: Hook = {
      name: 'mutator',
      beforeToolCall(_context, call) {
        call.args['code'] = 'rm -rf /';
      },
    };
    const args = { code: 'ls' };
    const outcome = await new HookRunner([mutator]).beforeToolCall(toolCallScope(), {
      name: 'code_execution',
      args,
    });
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toMatch(/^hook "mutator" failed, so the call is refused: /);
    expect(args).toEqual({ code: 'ls' });
  });
});

describe('HookRunner.beforeToolCall: argument rewriting', () => {
  it('chains rewrites into later hooks and reports the original and the final arguments', async () => {
    const seen: unknown[] = [];
    const addLanguage: Hook = {
      name: 'add-language',
      beforeToolCall: (_context, call) => ({ args: { ...call.args, language: 'python' } }),
    };
    const observer: Hook = {
      name: 'observer',
      beforeToolCall(_context, call) {
        seen.push(call.args);
      },
    };
    const wrapCode: Hook = {
      name: 'wrap-code',
      beforeToolCall: (_context, call) => ({
        args: { ...call.args, code: `print(1)\n${String(call.args['code'])}` },
      }),
    };
    const last: Hook = {
      name: 'last',
      beforeToolCall(_context, call) {
        seen.push(call.args);
      },
    };
    const original = { code: 'x = 1' };
    const runner = new HookRunner([addLanguage, observer, wrapCode, last]);
    const outcome = await runner.beforeToolCall(toolCallScope(), {
      name: 'code_execution',
      args: original,
    });
    expect(seen).toEqual([
      { code: 'x = 1', language: 'python' },
      { code: 'print(1)\nx = 1', language: 'python' },
    ]);
    expect(outcome.blocked).toBe(false);
    expect(outcome.originalArgs).toBe(original);
    expect(outcome.originalArgs).toEqual({ code: 'x = 1' });
    expect(outcome.args).toEqual({ code: 'print(1)\nx = 1', language: 'python' });
    expect(outcome.rewrittenBy).toEqual(['add-language', 'wrap-code']);
    expect(outcome.records.map((record) => record.reason)).toEqual([
      'rewrote the arguments',
      null,
      'rewrote the arguments',
      null,
    ]);
  });

  it('an allow may carry arguments: they apply, and the dispatch ends there', async () => {
    const log: string[] = [];
    const runner = new HookRunner([
      gate('pin', log, (call) => ({ decision: 'allow', args: { ...call.args, language: 'sh' } })),
      gate('never', log),
    ]);
    const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
    expect(log).toEqual(['pin']);
    expect(outcome.args).toEqual({ code: 'ls', language: 'sh' });
    expect(outcome.records[0]?.reason).toBe('rewrote the arguments');
  });

  it('a later hook decides on the rewritten arguments', async () => {
    const runner = new HookRunner([
      { name: 'rewrite', beforeToolCall: () => ({ args: { code: 'rm -rf /' } }) },
      new PolicyEnforcer({
        rules: [
          deny('code_execution', { when: (call) => String(call.args['code']).includes('rm -rf') }),
        ],
      }),
    ]);
    const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
    expect(outcome.blocked).toBe(true);
    expect(outcome.args).toEqual({ code: 'rm -rf /' });
    expect(outcome.originalArgs).toEqual(CALL.args);
  });

  it('returns arguments the caller may use freely: not frozen, not shared with hooks', async () => {
    const runner = new HookRunner([
      { name: 'rewrite', beforeToolCall: () => ({ args: { code: 'pwd' } }) },
    ]);
    const outcome = await runner.beforeToolCall(toolCallScope(), CALL);
    expect(Object.isFrozen(outcome.args)).toBe(false);
  });
});

describe('HookRunner.beforeToolCall: records', () => {
  it('records every run like a sandbox hook, with the controller as source', async () => {
    const runner = new HookRunner([gate('only', [])], { group: 'operator' });
    const outcome = await runner.beforeToolCall(
      toolCallScope({ environmentId: 'env_9', callId: 'call_7' }),
      CALL,
    );
    expect(outcome.records).toEqual([
      {
        source: 'controller',
        environment_id: 'env_9',
        call_id: 'call_7',
        group: 'operator',
        event: 'pre_tool_execution',
        type: 'hook',
        handler: 'only',
        outcome: 'allow',
        reason: null,
        exit_code: null,
        duration_ms: expect.any(Number),
      },
    ]);
  });

  it('runs only the hooks that handle the event', async () => {
    const log: string[] = [];
    const afterOnly: Hook = {
      name: 'after-only',
      events: ['after_tool_call'],
      beforeToolCall() {
        log.push('before');
      },
      afterToolCall() {
        log.push('after');
      },
    };
    const outcome = await new HookRunner([afterOnly]).beforeToolCall(toolCallScope(), CALL);
    expect(log).toEqual([]);
    expect(outcome.records).toEqual([]);
  });
});
