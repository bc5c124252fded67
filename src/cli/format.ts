import type { CallOutcome } from '../environments/environment.js';

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

function indent(text: string, prefix = '    '): string {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

/** A readable account of one call: the call, each hook with its outcome, then the result. */
export function callText(outcome: CallOutcome): string {
  const lines: string[] = [`▶ ${outcome.tool_call.name} ${JSON.stringify(outcome.tool_call.args)}`];
  for (const hook of outcome.hooks) {
    const event = hook.event === 'pre_tool_execution' ? 'pre ' : 'post';
    const reason = hook.reason ? `  ${hook.reason}` : '';
    lines.push(
      `  ${event} ${hook.group} (${hook.type}) → ${hook.outcome} [${Math.round(hook.duration_ms)} ms]${reason}`,
    );
  }
  if (outcome.blocked) {
    lines.push(`  ✖ blocked: ${outcome.reason}`);
  } else if (outcome.result) {
    const result = outcome.result;
    if ('exit_code' in result) {
      lines.push(
        `  ✔ exit ${result.exit_code}${result.timed_out ? ' (timed out)' : ''}${result.truncated ? ' (output truncated)' : ''}`,
      );
      if (typeof result.stdout === 'string' && result.stdout !== '')
        lines.push('  stdout:', indent(result.stdout));
      if (typeof result.stderr === 'string' && result.stderr !== '')
        lines.push('  stderr:', indent(result.stderr));
    } else if ('error' in result) {
      lines.push(`  ✖ error: ${String(result.error)}`);
    } else {
      lines.push(`  ✔ ${indent(JSON.stringify(result, null, 2), '  ').trimStart()}`);
    }
  }
  return lines.join('\n') + '\n';
}
