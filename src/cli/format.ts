import type { CallOutcome } from '../environments/environment.js';
import { hookLine, resultLines } from '../interactions/transcript.js';
import { visibleLine } from '../interactions/visible-text.js';

/** The `--json` shape of one call (SPEC §10). */
export function callJson(outcome: CallOutcome) {
  return {
    environment_id: outcome.environment_id,
    tool_call: outcome.tool_call,
    blocked: outcome.blocked,
    reason: outcome.reason,
    result: outcome.result,
    hooks: outcome.hooks.map((hook) => ({
      group: hook.group,
      event: hook.event,
      type: hook.type,
      outcome: hook.outcome,
      reason: hook.reason,
      exit_code: hook.exit_code,
      duration_ms: hook.duration_ms,
    })),
  };
}

/** A readable account of one call: the call, each hook with its outcome, then the result. */
export function callText(outcome: CallOutcome): string {
  const lines: string[] = [
    `▶ ${visibleLine(outcome.tool_call.name)} ${visibleLine(JSON.stringify(outcome.tool_call.args))}`,
    ...outcome.hooks.map(hookLine),
  ];
  if (outcome.blocked) lines.push(`  ✖ blocked: ${visibleLine(outcome.reason ?? '')}`);
  else if (outcome.result) lines.push(...resultLines(outcome.result));
  return lines.join('\n') + '\n';
}
