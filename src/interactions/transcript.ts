import type { HookOutcomeRecord, Interaction, Step } from './schema.js';
import { visibleBlock, visibleLine } from './visible-text.js';
import { valueText } from '../tools/value-text.js';

/** Indents a block of untrusted text, its control characters made visible (visible-text.ts). */
function indent(text: string, prefix = '    '): string {
  return visibleBlock(text)
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

/** One hook run as a line: event, group, handler type, outcome, duration, reason. */
export function hookLine(
  hook: Pick<HookOutcomeRecord, 'event' | 'group' | 'type' | 'outcome' | 'reason' | 'duration_ms'>,
): string {
  const event = hook.event === 'pre_tool_execution' ? 'pre ' : 'post';
  const reason = hook.reason ? `  ${visibleLine(hook.reason)}` : '';
  return `  ${event} ${visibleLine(hook.group)} (${hook.type}) → ${hook.outcome} [${Math.round(hook.duration_ms)} ms]${reason}`;
}

/** A tool result as a few lines: exit code and output, an error, or the content. */
export function resultLines(result: Record<string, unknown>): string[] {
  const lines: string[] = [];
  if ('exit_code' in result) {
    lines.push(
      `  ${result.exit_code === 0 ? '✔' : '✖'} exit ${String(result.exit_code)}${result.timed_out ? ' (timed out)' : ''}${result.truncated ? ' (output truncated)' : ''}`,
    );
    if (typeof result.stdout === 'string' && result.stdout !== '')
      lines.push('  stdout:', indent(result.stdout));
    if (typeof result.stderr === 'string' && result.stderr !== '')
      lines.push('  stderr:', indent(result.stderr));
  } else if (typeof result.error === 'string') {
    lines.push(`  ✖ error: ${visibleLine(result.error)}`);
  } else if (typeof result.content === 'string') {
    lines.push('  ✔ content:', indent(result.content));
  } else {
    lines.push(`  ✔ ${indent(JSON.stringify(result, null, 2), '  ').trimStart()}`);
  }
  return lines;
}

/** One step as a few readable lines (a transcript is these, in order). */
export function formatStep(step: Step): string {
  const lines: string[] = [];
  switch (step.type) {
    case 'user_input':
      lines.push(`» user: ${visibleLine(step.content.map((c) => c.text).join(''))}`);
      break;
    case 'model_output':
      lines.push(`« model: ${visibleLine(step.content.map((c) => c.text).join(''))}`);
      break;
    case 'code_execution_call':
    case 'function_call': {
      const name = step.type === 'function_call' ? step.name : 'code_execution';
      lines.push(
        `▶ ${visibleLine(name)} ${visibleLine(JSON.stringify(step.arguments))}`,
        ...step.hooks.map(hookLine),
      );
      break;
    }
    case 'code_execution_result':
    case 'function_result': {
      const shown = step.type === 'code_execution_result' ? step.structured_result : step.result;
      if (step.blocked) lines.push(`  ✖ blocked: ${visibleLine(valueText(step.result))}`);
      else if (shown === null || typeof shown === 'string')
        lines.push(`  ✖ refused: ${visibleLine(valueText(step.result))}`);
      else lines.push(...resultLines(shown));
      lines.push(...step.hooks.map(hookLine));
      break;
    }
  }
  return lines.join('\n') + '\n';
}

export function formatHeader(interaction: Interaction): string {
  const previous = interaction.previous_interaction_id
    ? `, after ${interaction.previous_interaction_id}`
    : '';
  return `interaction ${interaction.id} (agent ${interaction.agent}) in ${interaction.environment_id}${previous}\n\n`;
}

export function formatFooter(interaction: Interaction): string {
  const calls = interaction.steps.filter(
    (step) => step.type === 'code_execution_result' || step.type === 'function_result',
  );
  const blocked = calls.filter((step) => 'blocked' in step && step.blocked).length;
  const error = interaction.error
    ? `: ${interaction.error.code}: ${visibleLine(interaction.error.message)}`
    : '';
  // docs/dialects.md, "ask": what waits, and how to answer it.
  const waiting = (interaction.pending_approvals ?? [])
    .filter((approval) => approval.status === 'pending')
    .map(
      (approval) =>
        `  ⏸ ${approval.call_id} waits for approval until ${approval.expires_at}: ${approval.reason}\n` +
        `    answer with previous_interaction_id ${interaction.id} and {"type": "approval", "call_id": "${approval.call_id}", "approve": true|false}\n`,
    )
    .join('');
  return `\n${waiting}${interaction.status}${error} — ${calls.length} call(s), ${blocked} blocked\n`;
}

/** The whole interaction as a readable transcript: each call, each hook outcome, each result. */
export function transcriptOf(interaction: Interaction): string {
  return (
    formatHeader(interaction) +
    interaction.steps.map(formatStep).join('') +
    formatFooter(interaction)
  );
}
