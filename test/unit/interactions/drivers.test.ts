import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/index.js';
import type { DriverContext, ToolCallReport } from '../../../src/interactions/driver.js';
import {
  DriverRegistry,
  parseAgentAliases,
  vocabularyForAgent,
} from '../../../src/interactions/drivers/index.js';
import { scriptedDriver } from '../../../src/interactions/drivers/scripted.js';
import { DEFAULT_VOCABULARY, toolsOf } from '../../../src/tools/registry.js';
import type { ToolCall } from '../../../src/tools/types.js';

async function refusal(promise: Promise<unknown>): Promise<UserError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error('accepted');
}

describe('the driver registry', () => {
  it('scripted is always there', async () => {
    const registry = new DriverRegistry({ env: {} });
    expect((await registry.resolve('scripted')).driver).toBe(scriptedDriver);
    expect((await registry.resolve('scripted-05-2026')).vocabulary).toBe('2026-05');
  });

  it('gemini agents need GEMINI_API_KEY, and say so', async () => {
    const error = await refusal(
      new DriverRegistry({ env: {} }).resolve('antigravity-preview-05-2026'),
    );
    expect(error.details.field).toBe('agent');
    expect(error.message).toContain('GEMINI_API_KEY');
  });

  it('gemini-*, antigravity-preview-*, models/* go to the gemini driver; openai:<model> to openai', async () => {
    const env = { GEMINI_API_KEY: 'k', HOOKBOX_OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };
    const registry = new DriverRegistry({ env });
    for (const agent of [
      'gemini-2.5-flash',
      'antigravity-preview-09-2026',
      'models/gemini-2.5-pro',
    ])
      expect((await registry.resolve(agent)).driver.name).toMatch(/gemini/);
    expect((await registry.resolve('openai:qwen2.5')).driver.name).toMatch(/openai/);
  });

  it('an unknown agent lists the known ones', async () => {
    const error = await refusal(new DriverRegistry({ env: {} }).resolve('gpt-9'));
    expect(error.message).toMatch(/^agent: unknown agent "gpt-9"; known: scripted/);
  });

  it('a route without a driver in the map is refused as unavailable', async () => {
    const registry = new DriverRegistry({ env: { GEMINI_API_KEY: 'k' }, loaders: {} });
    const error = await refusal(registry.resolve('gemini-2.5-flash'));
    expect(error.code).toBe('unsupported');
    expect(error.message).toContain('does not have yet');
  });

  it('HOOKBOX_AGENT_ALIASES maps names before routing', async () => {
    const registry = new DriverRegistry({
      env: { HOOKBOX_AGENT_ALIASES: 'antigravity-preview-05-2026=scripted-05-2026' },
    });
    const resolved = await registry.resolve('antigravity-preview-05-2026');
    expect(resolved.driver).toBe(scriptedDriver);
    expect(resolved.agent).toBe('scripted-05-2026');
    expect(() => parseAgentAliases('nonsense')).toThrow(/HOOKBOX_AGENT_ALIASES/);
    expect(parseAgentAliases(' a = b ,c=d,')).toEqual(
      new Map([
        ['a', 'b'],
        ['c', 'd'],
      ]),
    );
  });

  it('an alias picks the driver, never the vocabulary: the requested name keeps its own', async () => {
    const env = {
      GEMINI_API_KEY: 'k',
      HOOKBOX_OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      HOOKBOX_AGENT_ALIASES:
        'antigravity-preview-05-2026=openai:qwen2.5,local=scripted-05-2026,old=scripted-09-2026',
    };
    const registry = new DriverRegistry({ env });
    const aliased = await registry.resolve('antigravity-preview-05-2026');
    expect(aliased.agent).toBe('openai:qwen2.5');
    expect(aliased.vocabulary).toBe('2026-05');
    // The target's -MM-YYYY does not count either: a name with none speaks the default.
    expect((await registry.resolve('local')).vocabulary).toBe(DEFAULT_VOCABULARY);
    expect((await registry.resolve('local')).driver).toBe(scriptedDriver);
    expect((await registry.resolve('old')).vocabulary).toBe(DEFAULT_VOCABULARY);
  });

  it('an agent ending in -MM-YYYY speaks that vocabulary when it exists', () => {
    expect(vocabularyForAgent('antigravity-preview-05-2026')).toBe('2026-05');
    expect(vocabularyForAgent('antigravity-preview-01-1999')).toBe(DEFAULT_VOCABULARY);
    expect(vocabularyForAgent('scripted')).toBe(DEFAULT_VOCABULARY);
  });
});

describe('the scripted driver', () => {
  const check = (
    input: Record<string, unknown>[],
    enabledTools = toolsOf('2026-05').map((t) => t.name),
  ) => scriptedDriver.checkInput!(input, { vocabulary: '2026-05', enabledTools });

  it('checks every call before anything runs, naming the input item', () => {
    expect(() => check([{ type: 'tool_call', name: 'read_file', arguments: {} }])).toThrow(
      /^input\[0\]\.arguments\.path: /,
    );
    expect(() =>
      check([
        { type: 'text', text: 'x' },
        { type: 'code_execution_call', arguments: { code: 'ls', shell: 'zsh' } },
      ]),
    ).toThrow(/^input\[1\]\.arguments/);
    expect(() => check([{ type: 'tool_call', name: 'nope', arguments: {} }])).toThrow(
      /^input\[0\]\.name: unknown tool "nope"/,
    );
    expect(() =>
      check([{ type: 'code_execution_call', arguments: { code: 'ls' } }], ['read_file']),
    ).toThrow(/add \{"type": "code_execution"\} to tools/);
    expect(() =>
      check([{ type: 'tool_call', name: 'read_file', arguments: { path: 'x' } }]),
    ).not.toThrow();
  });

  it('picks a vocabulary that has the tools it calls', () => {
    const input = [{ type: 'tool_call', name: 'read_file', arguments: { path: 'x' } }];
    expect(scriptedDriver.vocabularyFor!(input, '2026-05')).toBe('2026-05');
    expect(scriptedDriver.vocabularyFor!('text only', DEFAULT_VOCABULARY)).toBe(DEFAULT_VOCABULARY);
  });

  it('runs the calls in input order and nothing else', async () => {
    const calls: ToolCall[] = [];
    const said: string[] = [];
    const context: DriverContext = {
      agent: 'scripted',
      input: [
        { type: 'text', text: 'first' },
        {
          type: 'code_execution_call',
          arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
        },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'a' } },
      ],
      history: [],
      tools: [],
      maxSteps: 20,
      signal: new AbortController().signal,
      callTool: async (call: ToolCall): Promise<ToolCallReport> => {
        calls.push(call);
        return {
          call_id: `call_${calls.length}`,
          tool_call: call,
          blocked: true,
          reason: 'denied by the test',
          result: null,
          is_error: true,
          text_for_model: 'denied by the test',
          hooks: [],
        };
      },
      emitModelOutput: (text) => said.push(text),
      addUsage: () => {
        throw new Error('the scripted driver asks no model');
      },
    };
    await scriptedDriver.run(context);
    expect(calls).toEqual([
      { name: 'code_execution', args: { code: 'rm -rf /tmp/forbidden', language: 'bash' } },
      { name: 'read_file', args: { path: 'a' } },
    ]);
    // Its input's text is the user's, not the model's: it says nothing itself.
    expect(said).toEqual([]);
  });
});
