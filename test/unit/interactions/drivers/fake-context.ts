import type {
  DriverContext,
  ModelTool,
  ToolCallReport,
} from '../../../../src/interactions/driver.js';
import type { ToolCall, ToolResult } from '../../../../src/tools/types.js';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const PATH = { type: 'string', minLength: 1 };

/** An object schema as `z.toJSONSchema` writes it for a `z.strictObject`. */
function strictObject(properties: Record<string, unknown>, required: string[]) {
  return { $schema: DIALECT, type: 'object', properties, required, additionalProperties: false };
}

/**
 * The five sandbox tools as a model is shown them: their zod schemas as JSON Schema (written out
 * here, so that these tests do not move with the tool vocabulary).
 */
export const MODEL_TOOLS: ModelTool[] = [
  {
    name: 'code_execution',
    description: 'Run bash, sh or python code in the sandbox; cwd /workspace.',
    parameters: strictObject(
      {
        code: { type: 'string' },
        language: { type: 'string', enum: ['bash', 'python', 'sh'] },
      },
      ['code'],
    ),
  },
  {
    name: 'read_file',
    description: 'Read a UTF-8 text file; relative paths are under /workspace.',
    parameters: strictObject({ path: PATH }, ['path']),
  },
  {
    name: 'write_file',
    description:
      'Write a UTF-8 text file (parent folders are made); relative paths are under /workspace.',
    parameters: strictObject({ path: PATH, content: { type: 'string' } }, ['path', 'content']),
  },
  {
    name: 'list_files',
    description: 'List a folder: name, type and size of each entry.',
    parameters: strictObject({ path: PATH }, ['path']),
  },
  {
    name: 'delete_file',
    description: 'Delete a file (not a folder).',
    parameters: strictObject({ path: PATH }, ['path']),
  },
];

/** A tool's parameters as a driver must declare them: the JSON Schema without `$schema`. */
export function declared(name: string): Record<string, unknown> {
  const tool = MODEL_TOOLS.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const parameters = { ...tool.parameters };
  delete parameters.$schema;
  return parameters;
}

let nextCallId = 1;

/** What `callTool` reports for a call that ran, failed, or was blocked by a hook. */
export function report(
  call: ToolCall,
  outcome: { result: ToolResult; isError?: boolean } | { blocked: string },
): ToolCallReport {
  const call_id = `call_${nextCallId++}`;
  if ('blocked' in outcome) {
    return {
      call_id,
      tool_call: call,
      blocked: true,
      reason: outcome.blocked,
      result: null,
      is_error: true,
      text_for_model: outcome.blocked,
      hooks: [],
    };
  }
  return {
    call_id,
    tool_call: call,
    blocked: false,
    reason: null,
    result: outcome.result,
    is_error: outcome.isError ?? false,
    text_for_model: JSON.stringify(outcome.result),
    hooks: [],
  };
}

export interface FakeContext extends DriverContext {
  /** Every `callTool` call, in order. */
  calls: ToolCall[];
  /** Every `emitModelOutput` text, in order. */
  outputs: string[];
}

/**
 * A DriverContext with no sandbox: `callTool` answers from `tools` (one function per call, in
 * order; a call beyond them fails the test).
 */
export function fakeContext(
  options: Partial<DriverContext> & {
    tools?: ModelTool[];
    answers?: ((call: ToolCall) => ToolCallReport)[];
  },
): FakeContext {
  const { answers = [], ...rest } = options;
  const calls: ToolCall[] = [];
  const outputs: string[] = [];
  return {
    agent: 'gemini-test',
    input: 'hello',
    addUsage: () => {},
    history: [],
    tools: MODEL_TOOLS,
    maxSteps: 20,
    signal: new AbortController().signal,
    callTool: (call) => {
      calls.push(call);
      const answer = answers[calls.length - 1];
      if (answer === undefined)
        return Promise.reject(new Error(`unexpected tool call ${JSON.stringify(call)}`));
      return Promise.resolve(answer(call));
    },
    emitModelOutput: (text) => {
      outputs.push(text);
    },
    ...rest,
    calls,
    outputs,
  };
}
