import type { AgentAnswerOf } from '../sandbox/protocol/index.js';

/** A call of one of the sandbox's built-in tools, exactly as the caller sent it. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * What a tool gives back, as stored and shown to the model: the tool's own result object. Each
 * built-in tool's shape is taken from the agent protocol (src/sandbox/protocol/): {@link ExecResult},
 * {@link FileToolResult}, {@link File202609ToolResult}; `isExecResult` and `execResultOf`
 * (src/tools/results.ts) narrow to the first.
 */
export type ToolResult = Record<string, unknown>;

/** `code_execution`'s result (docs/contract.md §5): the end of the agent's `run_code`. */
export type ExecResult = Pick<
  AgentAnswerOf<'run_code'>,
  'exit_code' | 'stdout' | 'stderr' | 'timed_out' | 'truncated'
>;
/** A file tool's result in vocabulary 2026-05: the agent's `file` answer as it is. */
export type FileToolResult = AgentAnswerOf<'file'>;
/** A file tool's result in vocabulary 2026-09: the agent's `file_2026_09` answer as it is. */
export type File202609ToolResult = AgentAnswerOf<'file_2026_09'>;
