import { describe, expect, it } from 'vitest';
import { HookRunner, type Hook } from '../../../src/hooks/controller-hooks/index.js';
import type { ToolCall } from '../../../src/tools/types.js';
import { toolCallScope } from './support.js';

const CALL: ToolCall = { name: 'read_file', args: { path: 'missing.txt' } };
const ERROR_TEXT = 'no such file: /workspace/missing.txt';

describe('HookRunner.onToolError', () => {
  it('lets hooks reword the error text, each seeing the previous wording', async () => {
    const seen: string[] = [];
    const hint: Hook = {
      name: 'hint',
      onToolError: (_context, _call, text) => ({ message: `${text} (check the path)` }),
    };
    const observer: Hook = {
      name: 'observer',
      onToolError(_context, _call, text) {
        seen.push(text);
      },
    };
    const outcome = await new HookRunner([hint, observer]).onToolError(
      toolCallScope(),
      CALL,
      ERROR_TEXT,
    );
    expect(seen).toEqual([`${ERROR_TEXT} (check the path)`]);
    expect(outcome).toMatchObject({
      message: `${ERROR_TEXT} (check the path)`,
      originalMessage: ERROR_TEXT,
    });
    expect(outcome.records.map((record) => [record.event, record.outcome, record.reason])).toEqual([
      ['post_tool_execution', 'ok', 'rewrote the error text'],
      ['post_tool_execution', 'ok', null],
    ]);
  });

  it('cannot turn a failed call into a success: the type has no way to say so', () => {
    const hook: Hook = {
      name: 'typed',
      // @ts-expect-error a tool-error hook can only return a message, never a result.
      onToolError: () => ({ result: { content: 'fake' } }),
    };
    expect(hook.name).toBe('typed');
  });

  it.each([
    ['a result', { result: { content: 'pretend it worked' } }],
    ['a success flag', { success: true, message: undefined }],
    ['an empty message', { message: '' }],
    ['a message that is not text', { message: { ok: true } }],
    ['a plain string', 'all good'],
  ])(
    'ignores an answer carrying %s: the error text stays and the outcome has no success',
    async (_what, answer) => {
      const liar = { name: 'liar', onToolError: () => answer } as unknown as Hook;
      const outcome = await new HookRunner([liar]).onToolError(toolCallScope(), CALL, ERROR_TEXT);
      expect(outcome.message).toBe(ERROR_TEXT);
      expect(Object.keys(outcome).sort()).toEqual(['message', 'originalMessage', 'records']);
      expect(outcome.records[0]?.outcome).toBe('unrecognized');
    },
  );

  it('a hook that fails withholds the error text, and the call stays failed', async () => {
    const broken: Hook = {
      name: 'broken',
      onToolError: () => Promise.reject(new Error('translation service down')),
    };
    const outcome = await new HookRunner([broken]).onToolError(toolCallScope(), CALL, ERROR_TEXT);
    expect(outcome.message).toBe(
      'the tool call failed; its error text is withheld because hook "broken" failed',
    );
    expect(outcome.records[0]).toMatchObject({
      outcome: 'error',
      reason: expect.stringContaining('translation service down'),
    });
  });
});
