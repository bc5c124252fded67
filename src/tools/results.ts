/**
 * Narrowing a tool result to one tool's shape (src/tools/types.ts, docs/testing.md "Typed tool
 * results"). A call's raw result is typed only up to its operation's answer, and a result read back
 * from the audit log or the API is JSON, so the shape is checked here, never assumed.
 */
import type { z } from 'zod';
import { FILE_2026_09_ANSWERS, FILE_ANSWERS } from '../sandbox/protocol/index.js';
import type {
  BuiltinToolName,
  ExecResult,
  PresentedResult,
  SucceededResultByName,
  ToolCall,
} from './types.js';

/** Whether `result` is a `code_execution` result. */
export function isExecResult(result: PresentedResult | null | undefined): result is ExecResult {
  return (
    result !== null &&
    result !== undefined &&
    typeof result.exit_code === 'number' &&
    typeof result.stdout === 'string' &&
    typeof result.stderr === 'string' &&
    typeof result.timed_out === 'boolean' &&
    typeof result.truncated === 'boolean'
  );
}

/** An outcome (it has `result` and no `exit_code`), not a result itself. */
function isOutcome(
  from: { result: PresentedResult | null } | PresentedResult,
): from is { result: PresentedResult | null } {
  return 'result' in from && !('exit_code' in from);
}

function describe(result: PresentedResult | null): string {
  return result === null ? 'none (blocked?)' : JSON.stringify(result).slice(0, 200);
}

/**
 * The `code_execution` result of an outcome (or a result itself); a TypeError naming what it is
 * otherwise (a blocked call has none).
 */
export function execResultOf(
  from: { result: PresentedResult | null } | PresentedResult | null,
): ExecResult {
  const result = from !== null && isOutcome(from) ? from.result : from;
  if (isExecResult(result)) return result;
  throw new TypeError(`not a code_execution result: ${describe(result)}`);
}

/** The result, checked against one shape of the protocol: a copy of it, or undefined. */
function checked<Schema extends z.ZodType>(
  schema: Schema,
): (result: PresentedResult) => z.output<Schema> | undefined {
  return (result) => {
    const parsed = schema.safeParse(result);
    return parsed.success ? parsed.data : undefined;
  };
}

/** How each tool's succeeded result is recognised (`delete_file`: as either vocabulary gives it). */
const SUCCEEDED: {
  [Name in BuiltinToolName]: (result: PresentedResult) => SucceededResultByName[Name] | undefined;
} = {
  code_execution: (result) => (isExecResult(result) ? result : undefined),
  read_file: checked(FILE_ANSWERS.read_file),
  write_file: checked(FILE_ANSWERS.write_file),
  list_files: checked(FILE_ANSWERS.list_files),
  delete_file: (result) =>
    checked(FILE_2026_09_ANSWERS.delete_file)(result) ?? checked(FILE_ANSWERS.delete_file)(result),
  view_file: checked(FILE_2026_09_ANSWERS.view_file),
  write_to_file: checked(FILE_2026_09_ANSWERS.write_to_file),
  replace_file_content: checked(FILE_2026_09_ANSWERS.replace_file_content),
  list_dir: checked(FILE_2026_09_ANSWERS.list_dir),
  find_by_name: checked(FILE_2026_09_ANSWERS.find_by_name),
  grep_search: checked(FILE_2026_09_ANSWERS.grep_search),
};

/**
 * The result of a call of tool `name` that did its job, typed as that tool's (for a file tool, a
 * checked copy); a TypeError naming what it is otherwise: another tool's call, a blocked call, a
 * file tool's `{error}`.
 */
export function resultOf<Name extends BuiltinToolName>(
  outcome: { tool_call: ToolCall; result: PresentedResult | null },
  name: Name,
): SucceededResultByName[Name] {
  if (outcome.tool_call.name !== name)
    throw new TypeError(`not a ${name} call: a ${outcome.tool_call.name} call`);
  const result = outcome.result;
  const succeeded = result === null ? undefined : SUCCEEDED[name](result);
  if (succeeded !== undefined) return succeeded;
  throw new TypeError(`not a ${name} result: ${describe(result)}`);
}

/**
 * A file tool's failure text (its result's `error`), or undefined when the result has none; a
 * TypeError when the call has no result (it was blocked).
 */
export function toolErrorOf(outcome: { result: PresentedResult | null }): string | undefined {
  const result = outcome.result;
  if (result === null) throw new TypeError(`no result to read an error from: ${describe(result)}`);
  return typeof result.error === 'string' ? result.error : undefined;
}
