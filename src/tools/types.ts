import type { z } from 'zod';
import type {
  AgentAnswerOf,
  FILE_2026_09_ANSWERS,
  FILE_ANSWERS,
} from '../sandbox/protocol/index.js';

/** A call of one of the sandbox's built-in tools, exactly as the caller sent it. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/*
 * What is typed where (docs/testing.md, "Typed tool results"):
 * - the raw result of a built-in tool is typed from the agent protocol to the call's outcome: the
 *   agent's answer is checked against the protocol's schema of its operation
 *   (src/sandbox/protocol/check.ts) before a tool's `result` reads it, so {@link BuiltinToolResult}
 *   is what `CallOutcome.result` holds;
 * - what the model is shown ({@link PresentedResult}) is JSON: controller hooks' `afterToolCall` may
 *   rewrite it into any object (docs/policies.md);
 * - a result read back from storage or the API (audit log, stored steps, MCP) is JSON too, and is
 *   narrowed by checks (src/tools/results.ts), never cast.
 */

/** The agent operations the built-in tools run on (docs/agent-protocol.md). */
export type ToolOp = 'run_code' | 'file' | 'file_2026_09';

/** `code_execution`'s result (docs/contract.md §5): the end of the agent's `run_code`. */
export type ExecResult = Pick<
  AgentAnswerOf<'run_code'>,
  'exit_code' | 'stdout' | 'stderr' | 'timed_out' | 'truncated'
>;
/** A file tool's result in vocabulary 2026-05: the agent's `file` answer as it is. */
export type FileToolResult = AgentAnswerOf<'file'>;
/** A file tool's result in vocabulary 2026-09: the agent's `file_2026_09` answer as it is. */
export type File202609ToolResult = AgentAnswerOf<'file_2026_09'>;

/** The result of a tool that runs on each operation. */
export interface ToolResultOfOp {
  run_code: ExecResult;
  file: FileToolResult;
  file_2026_09: File202609ToolResult;
}

/** What any built-in tool gives back, as the protocol guarantees it: `CallOutcome.result`. */
export type BuiltinToolResult = ToolResultOfOp[ToolOp];

/**
 * A built-in tool's result by the tool's name, over both vocabularies (docs/vocabularies.md). The
 * agent's answer is checked against its operation's schema, not the tool's, so a file tool's type is
 * its operation's whole answer; `delete_file` is in both vocabularies, so it may be either.
 */
export interface ToolResultByName {
  code_execution: ExecResult;
  read_file: FileToolResult;
  write_file: FileToolResult;
  list_files: FileToolResult;
  delete_file: FileToolResult | File202609ToolResult;
  view_file: File202609ToolResult;
  write_to_file: File202609ToolResult;
  replace_file_content: File202609ToolResult;
  list_dir: File202609ToolResult;
  find_by_name: File202609ToolResult;
  grep_search: File202609ToolResult;
}
export type BuiltinToolName = keyof ToolResultByName;

type SucceededOf<Answers extends Record<string, z.ZodType>> = {
  [Name in keyof Answers]: z.output<Answers[Name]>;
};
type Files202605 = SucceededOf<typeof FILE_ANSWERS>;
type Files202609 = SucceededOf<typeof FILE_2026_09_ANSWERS>;

/**
 * A built-in tool's result when the tool did its job (not a file tool's `{error}`), by the tool's
 * name: the one shape of its operation's answer that tool gives. Known only once checked
 * (`resultOf`, src/tools/results.ts).
 */
export type SucceededResultByName = { code_execution: ExecResult } & Omit<
  Files202605,
  'delete_file'
> &
  Omit<Files202609, 'delete_file'> & {
    delete_file: Files202605['delete_file'] | Files202609['delete_file'];
  };

/**
 * A plain object, sent and stored as JSON: how a result is handled where its tool is not known or its
 * shape not guaranteed (post hook payloads, the audit log, stored steps, the API). Read its fields
 * with checks (src/tools/results.ts).
 */
export type JsonObject = Record<string, unknown>;

/**
 * What the model is shown of a call that ran (`CallOutcome.presented`), and what controller hooks
 * see and return in `afterToolCall`: the raw result, or any object a hook rewrote it into
 * (docs/policies.md), so nothing more than JSON is known of its shape.
 */
export type PresentedResult = JsonObject;

/**
 * A tool's result as JSON: the name earlier versions gave every result, kept so code written against
 * them compiles. A built-in tool's own result is typed {@link BuiltinToolResult}.
 */
export type ToolResult = JsonObject;
