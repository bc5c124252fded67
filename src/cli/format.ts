import type { CallOutcome } from '../controller/environment.js';
import { hookLine, resultLines } from '../interactions/transcript.js';
import { visibleLine } from '../interactions/visible-text.js';
import { valueText } from '../tools/value-text.js';
import type { JsonObject } from '../tools/types.js';

/** The `--json` shape of one call (docs/contract.md §10). */
export function callJson(outcome: CallOutcome) {
  return {
    environment_id: outcome.environment_id,
    tool_call: outcome.tool_call,
    blocked: outcome.blocked,
    reason: outcome.reason,
    result: outcome.result,
    // Extensions (docs/dialects.md): a rewrite's original, hooks' words for the model, an ask.
    ...(outcome.original_args ? { original_args: outcome.original_args } : {}),
    ...(outcome.additional_context ? { additional_context: outcome.additional_context } : {}),
    ...(outcome.approval ? { approval: outcome.approval } : {}),
    hooks: outcome.hooks.map((hook) => ({
      group: hook.group,
      event: hook.event,
      type: hook.type,
      outcome: hook.outcome,
      reason: hook.reason,
      exit_code: hook.exit_code,
      duration_ms: hook.duration_ms,
      ...(hook.dialect === undefined ? {} : { dialect: hook.dialect }),
      ...(hook.raw_answer === undefined ? {} : { raw_answer: hook.raw_answer }),
      ...(hook.force === undefined ? {} : { force: hook.force }),
      ...(hook.updated_args === undefined ? {} : { updated_args: hook.updated_args }),
      ...(hook.additional_context === undefined
        ? {}
        : { additional_context: hook.additional_context }),
    })),
  };
}

/** A readable account of one call: the call, each hook with its outcome, then the result. */
/** The `▶ tool {args}` line a call's text starts with. */
export const callHeader = (call: { name: string; args: unknown }): string =>
  `▶ ${visibleLine(call.name)} ${visibleLine(JSON.stringify(call.args))}\n`;

export function callText(
  outcome: CallOutcome,
  options: { outputShown?: boolean; headerShown?: boolean } = {},
): string {
  const lines: string[] = [
    ...(options.headerShown ? [] : [callHeader(outcome.tool_call).trimEnd()]),
    ...outcome.hooks.map(hookLine),
  ];
  if (outcome.blocked) lines.push(`  ✖ blocked: ${visibleLine(outcome.reason ?? '')}`);
  else if (outcome.result) {
    // Output printed live is not printed again.
    const result: JsonObject = outcome.result;
    const { stdout, stderr, ...rest } = result;
    lines.push(...resultLines(options.outputShown ? rest : result));
    if (options.outputShown)
      lines.push(
        `  (output shown above: ${valueText(stdout ?? '').length} characters of stdout, ${valueText(stderr ?? '').length} of stderr)`,
      );
  }
  return lines.join('\n') + '\n';
}
