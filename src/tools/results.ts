/**
 * Narrowing a stored or returned tool result to its tool's type (src/tools/types.ts): the result of
 * a call outcome is JSON (it may come from the audit log or the API), so the shape is checked, not
 * assumed.
 */
import type { ExecResult, ToolResult } from './types.js';

/** Whether `result` is a `code_execution` result. */
export function isExecResult(result: ToolResult | null | undefined): result is ExecResult {
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
  from: { result: ToolResult | null } | ToolResult,
): from is { result: ToolResult | null } {
  return 'result' in from && !('exit_code' in from);
}

/**
 * The `code_execution` result of an outcome (or a result itself); a TypeError naming what it is
 * otherwise (a blocked call has none).
 */
export function execResultOf(from: { result: ToolResult | null } | ToolResult | null): ExecResult {
  const result = from !== null && isOutcome(from) ? from.result : from;
  if (isExecResult(result)) return result;
  throw new TypeError(
    `not a code_execution result: ${result === null ? 'none (blocked?)' : JSON.stringify(result).slice(0, 200)}`,
  );
}
