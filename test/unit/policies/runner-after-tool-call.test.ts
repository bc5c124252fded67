import { describe, expect, it } from 'vitest';
import { HookRunner, type Hook } from '../../../src/hooks/controller-hooks/index.js';
import type { ToolCall, ToolResult } from '../../../src/tools/types.js';
import { toolCallScope } from './support.js';

const CALL: ToolCall = { name: 'code_execution', args: { code: 'env' } };

function rawResult(): ToolResult {
  return {
    exit_code: 0,
    stdout: 'KEY=AKIAABCDEFGHIJKLMNOP\nuser=tool',
    stderr: '',
    timed_out: false,
    truncated: false,
  };
}

describe('HookRunner.afterToolCall', () => {
  it('chains result rewrites and returns the raw result, unchanged, beside the presented one', async () => {
    const seen: ToolResult[] = [];
    const redact: Hook = {
      name: 'redact',
      afterToolCall: (_context, _call, result) => ({
        result: {
          ...result,
          stdout: String(result['stdout']).replace(/AKIA[A-Z]{16}/, '[redacted]'),
        },
      }),
    };
    const shorten: Hook = {
      name: 'shorten',
      afterToolCall(_context, _call, result) {
        seen.push(result);
        return { result: { ...result, stdout: String(result['stdout']).split('\n')[0] } };
      },
    };
    const raw = rawResult();
    const outcome = await new HookRunner([redact, shorten]).afterToolCall(
      toolCallScope(),
      CALL,
      raw,
    );
    expect(seen[0]?.['stdout']).toBe('KEY=[redacted]\nuser=tool');
    expect(outcome.presented['stdout']).toBe('KEY=[redacted]');
    expect(outcome.raw).toBe(raw);
    expect(outcome.raw).toEqual(rawResult());
    expect(outcome.withheld).toBe(false);
    expect(outcome.records.map((record) => [record.event, record.outcome, record.reason])).toEqual([
      ['post_tool_execution', 'ok', 'rewrote the result'],
      ['post_tool_execution', 'ok', 'rewrote the result'],
    ]);
  });

  it('presents the raw result itself when no hook rewrites it', async () => {
    const raw = rawResult();
    const outcome = await new HookRunner([
      { name: 'observer', afterToolCall: () => undefined },
    ]).afterToolCall(toolCallScope(), CALL, raw);
    expect(outcome.presented).toBe(raw);
    expect(outcome.records[0]).toMatchObject({ outcome: 'ok', reason: null });
  });

  it('a hook that fails withholds the result instead of showing what it should have cleaned', async () => {
    const log: string[] = [];
    const broken: Hook = {
      name: 'broken-redactor',
      afterToolCall() {
        throw new Error('pattern file missing');
      },
    };
    const later: Hook = {
      name: 'later',
      afterToolCall() {
        log.push('later');
      },
    };
    const raw = rawResult();
    const outcome = await new HookRunner([broken, later]).afterToolCall(toolCallScope(), CALL, raw);
    expect(outcome.withheld).toBe(true);
    expect(outcome.presented).toEqual({
      error: 'the result is withheld because hook "broken-redactor" failed',
    });
    expect(outcome.raw).toBe(raw);
    expect(log).toEqual([]);
    expect(outcome.records.map((record) => [record.outcome, record.reason])).toEqual([
      ['error', 'hook "broken-redactor" failed: pattern file missing; the result is withheld'],
      ['skipped', 'not run: hook "broken-redactor" failed (error)'],
    ]);
  });

  it('ignores an unrecognized answer and records it', async () => {
    const odd = { name: 'odd', afterToolCall: () => ({ result: 'just text' }) } as unknown as Hook;
    const raw = rawResult();
    const outcome = await new HookRunner([odd]).afterToolCall(toolCallScope(), CALL, raw);
    expect(outcome.presented).toBe(raw);
    expect(outcome.records[0]?.outcome).toBe('unrecognized');
  });

  it('hooks cannot alter the raw result by mutating what they are given', async () => {
    const mutator: Hook = {
      name: 'mutator',
      afterToolCall(_context, _call, result) {
        try {
          result['stdout'] = 'changed';
        } catch {
          // Frozen: the assignment throws in strict mode, which is the point.
        }
      },
    };
    const raw = rawResult();
    await new HookRunner([mutator]).afterToolCall(toolCallScope(), CALL, raw);
    expect(raw).toEqual(rawResult());
  });

  it('shows hooks the call with the arguments that ran', async () => {
    let seenCall: ToolCall | undefined;
    const observer: Hook = {
      name: 'observer',
      afterToolCall(_context, call) {
        seenCall = call;
      },
    };
    await new HookRunner([observer]).afterToolCall(toolCallScope(), CALL, rawResult());
    expect(seenCall).toEqual(CALL);
  });
});
