/** The controller hooks before a call: they may refuse it or rewrite its arguments, which are then checked again. */
import type { ToolCallScope } from '../hooks/controller-hooks/hook-context.js';
import type { HookRunner } from '../hooks/controller-hooks/runner.js';
import type { HookRecord } from '../record/types.js';
import { resolveToolCall, type VocabularyId } from '../tools/registry.js';
import type { ToolCall } from '../tools/types.js';
import type { CallOutcome } from './call-outcome.js';

/** A call checked against its tool's schema. */
export type ResolvedCall = ReturnType<typeof resolveToolCall>;

/**
 * Runs the controller hooks and policies before a call: a refusal there means the sandbox is never
 * asked. Their records, and a rewrite of the arguments, go into `outcome`. The answer is the call
 * to go on with, resolved, or why it stops.
 */
export async function controllerBeforeCall(
  hooks: HookRunner,
  scope: ToolCallScope,
  verbatim: ToolCall,
  checked: ResolvedCall,
  vocabulary: VocabularyId,
  outcome: CallOutcome,
  record: (hook: HookRecord) => void,
): Promise<{ call: ToolCall; resolved: ResolvedCall } | { refused: string | null }> {
  let call = verbatim;
  const pre = await hooks.beforeToolCall(scope, verbatim);
  pre.records.forEach(record);
  outcome.hooks.push(...pre.records);
  if (pre.args !== pre.originalArgs) {
    outcome.original_args = verbatim.args;
    call = { name: verbatim.name, args: pre.args };
    outcome.tool_call = call;
  }
  if (pre.blocked) return { refused: pre.reason };
  if (call === verbatim) return { call, resolved: checked };
  // Rewritten arguments are checked again, as the caller's were.
  try {
    return { call, resolved: resolveToolCall(call, vocabulary) };
  } catch (error) {
    const reason = `a controller hook rewrote the arguments into an invalid call: ${(error as Error).message}`;
    return { refused: reason };
  }
}
