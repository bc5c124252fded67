/** The controller hooks after a call: what the model is shown of its result (presentation rewrites, error rewording). */
import type { ToolCallScope } from '../hooks/controller-hooks/hook-context.js';
import type { HookRunner } from '../hooks/controller-hooks/runner.js';
import type { HookRecord } from '../record/types.js';
import type { AnyToolDefinition } from '../tools/tool-definition.js';
import type { BuiltinToolResult, ToolCall } from '../tools/types.js';
import type { CallOutcome } from './call-outcome.js';

/**
 * Sets `outcome.presented` (and, for a call that succeeded, `is_error` when the result is
 * withheld) from the controller hooks' rewrites of the result; their records go into `outcome`.
 */
export async function rewriteResult(
  hooks: HookRunner,
  scope: ToolCallScope,
  ran: {
    call: ToolCall;
    tool: AnyToolDefinition;
    result: BuiltinToolResult;
    error: string | undefined;
  },
  outcome: CallOutcome,
  record: (hook: HookRecord) => void,
): Promise<void> {
  const { call, tool, result, error } = ran;
  if (outcome.is_error) {
    // Presentation rewrites (redact-secrets, docs/policies.md) apply to a failed call's result
    // too: a secret in the output of a failing command must not reach the model either. The
    // error text is then taken from the rewritten result and handed to tool-error hooks.
    const shown = await hooks.afterToolCall(scope, call, result);
    shown.records.forEach(record);
    outcome.hooks.push(...shown.records);
    if (shown.withheld) {
      outcome.presented = shown.presented;
      return;
    }
    const shownError =
      shown.presented === result ? error : (tool.errorOf(shown.presented) ?? error);
    const reworded = await hooks.onToolError(scope, call, shownError ?? 'the tool call failed');
    reworded.records.forEach(record);
    outcome.hooks.push(...reworded.records);
    outcome.presented = { ...shown.presented, error: reworded.message };
  } else {
    const shown = await hooks.afterToolCall(scope, call, result);
    shown.records.forEach(record);
    outcome.hooks.push(...shown.records);
    outcome.presented = shown.presented;
    outcome.is_error = shown.withheld;
  }
}
