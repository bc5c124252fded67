/** How a finished tool call is judged (failed) and recorded: its audit log entry and its observation. */
import type { AuditBudget } from '../record/audit-bound.js';
import type { AuditLog } from '../record/audit-log.js';
import type { Observation } from '../record/observations.js';
import type { JsonObject } from '../tools/types.js';
import type { CallOutcome } from './call-outcome.js';

/** A call failed (rather than merely wrote to stderr): a file error, a non-zero exit, a timeout. */
export function failed(result: JsonObject): boolean {
  return (
    typeof result.error === 'string' ||
    result.timed_out === true ||
    (typeof result.exit_code === 'number' && result.exit_code !== 0)
  );
}

/**
 * Records a finished call: its `tool_call` entry in the audit log (within the call's budget) and its
 * observation for metrics and the console. Returns the outcome.
 */
export function recordToolCall(
  audit: AuditLog,
  observe: ((observation: Observation) => void) | undefined,
  environmentId: string,
  budget: AuditBudget,
  outcome: CallOutcome,
): CallOutcome {
  audit.append(
    {
      kind: 'tool_call',
      at: new Date().toISOString(),
      environment_id: environmentId,
      call_id: outcome.call_id,
      tool_call: outcome.original_args
        ? { ...outcome.tool_call, args: outcome.original_args }
        : outcome.tool_call,
      ...(outcome.original_args ? { rewritten_args: outcome.tool_call.args } : {}),
      ...(outcome.actor === undefined ? {} : { actor: outcome.actor }),
      blocked: outcome.blocked,
      reason: outcome.reason,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...(outcome.result === null ? {} : { result: outcome.result }),
      ...(outcome.presented !== null && outcome.presented !== outcome.result
        ? { presented: outcome.presented }
        : {}),
      ...(outcome.approval ? { approval: outcome.approval } : {}),
      ...(outcome.additional_context ? { additional_context: outcome.additional_context } : {}),
    },
    budget,
  );
  observe?.({
    kind: 'tool_call',
    at: Date.now(),
    environment_id: environmentId,
    call_id: outcome.call_id,
    tool: outcome.tool_call.name,
    outcome: outcome.blocked ? 'blocked' : outcome.is_error ? 'error' : 'ok',
    reason: outcome.reason,
    hooks: outcome.hooks,
  });
  return outcome;
}
