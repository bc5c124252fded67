import { newCallId } from '../ids.js';
import type { CallOutcome } from '../controller/environment.js';
import type { HookRecord } from '../record/types.js';
import type { ToolCall, JsonObject } from '../tools/types.js';
import type { ConversationTurn, ToolCallReport } from './driver.js';
import type { CallStep, HookOutcomeRecord, Interaction, ResultStep, Step } from './schema.js';

/** The tools whose calls are `code_execution_call` / `code_execution_result` steps. */
const CODE_EXECUTION = 'code_execution';

export function hookOutcomeOf(record: HookRecord): HookOutcomeRecord {
  return {
    source: record.source,
    group: record.group,
    event: record.event,
    type: record.type,
    handler: record.handler,
    outcome: record.outcome,
    reason: record.reason,
    exit_code: record.exit_code,
    duration_ms: record.duration_ms,
    ...(record.dialect === undefined ? {} : { dialect: record.dialect }),
    ...(record.raw_answer === undefined ? {} : { raw_answer: record.raw_answer }),
    ...(record.force === undefined ? {} : { force: record.force }),
    ...(record.updated_args === undefined ? {} : { updated_args: record.updated_args }),
    ...(record.additional_context === undefined
      ? {}
      : { additional_context: record.additional_context }),
    ...(record.runner === undefined ? {} : { runner: record.runner }),
  };
}

/**
 * What a call came to, as a driver feeds it back to the model (docs/contract.md §6: a block is an error). The
 * result is the one the model is shown: after controller hooks' presentation rewrites, if any.
 */
export function reportOf(outcome: CallOutcome): ToolCallReport {
  const shown = outcome.blocked ? null : (outcome.presented ?? outcome.result);
  return {
    call_id: outcome.call_id,
    tool_call: outcome.tool_call,
    blocked: outcome.blocked,
    reason: outcome.reason,
    result: shown,
    is_error: outcome.is_error,
    text_for_model:
      (outcome.blocked ? (outcome.reason ?? 'blocked by a hook') : JSON.stringify(shown)) +
      contextForModel(outcome.additional_context),
    hooks: outcome.hooks,
    ...(outcome.additional_context ? { additional_context: outcome.additional_context } : {}),
  };
}

/** Hooks' `additionalContext`, as the model is shown it after the result (docs/dialects.md). */
function contextForModel(context: readonly string[] | undefined): string {
  if (!context || context.length === 0) return '';
  return `\n\nAdditional context from hooks:\n${context.join('\n')}`;
}

/** A call refused before it reached the gates (unknown tool, bad arguments, tool not enabled). */
export function refusedReport(call: ToolCall, message: string): ToolCallReport {
  return {
    call_id: newCallId(),
    tool_call: call,
    blocked: false,
    reason: null,
    result: null,
    is_error: true,
    text_for_model: message,
    hooks: [],
  };
}

/**
 * A `code_execution_result`'s text, as the SDKs type it (a string): what the code printed, stdout
 * then stderr; the structured result (exit code and all) goes in `structured_result`.
 */
export function codeResultText(result: Record<string, unknown>): string {
  const stdout = typeof result.stdout === 'string' ? result.stdout : '';
  const stderr = typeof result.stderr === 'string' ? result.stderr : '';
  if (stdout !== '' || stderr !== '') return stdout + stderr;
  return typeof result.error === 'string' ? result.error : '';
}

/** The call step and the result step of one call; pre hooks on the call, post hooks on the result. */
export function stepsOf(
  report: ToolCallReport,
  originalArgs?: Record<string, unknown>,
): [CallStep, ResultStep] {
  const pre = report.hooks.filter((h) => h.event === 'pre_tool_execution').map(hookOutcomeOf);
  const post = report.hooks.filter((h) => h.event === 'post_tool_execution').map(hookOutcomeOf);
  const refused = report.result === null && !report.blocked;
  const notRun = report.blocked || refused;
  const error = refused
    ? report.text_for_model
    : typeof report.result?.error === 'string'
      ? report.result.error
      : undefined;
  const common = {
    call_id: report.call_id,
    is_error: report.is_error,
    blocked: report.blocked,
    ...(error === undefined ? {} : { error }),
    ...(report.additional_context ? { additional_context: report.additional_context } : {}),
    hooks: post,
  };
  if (report.tool_call.name === CODE_EXECUTION) {
    return [
      {
        type: 'code_execution_call',
        id: report.call_id,
        arguments: report.tool_call.args,
        ...(originalArgs ? { original_arguments: originalArgs } : {}),
        hooks: pre,
      },
      {
        type: 'code_execution_result',
        result: notRun ? report.text_for_model : codeResultText(report.result ?? {}),
        structured_result: notRun ? null : (report.result ?? {}),
        ...common,
      },
    ];
  }
  return [
    {
      type: 'function_call',
      id: report.call_id,
      name: report.tool_call.name,
      arguments: report.tool_call.args,
      ...(originalArgs ? { original_arguments: originalArgs } : {}),
      hooks: pre,
    },
    {
      type: 'function_result',
      name: report.tool_call.name,
      result: notRun ? report.text_for_model : (report.result ?? {}),
      ...common,
    },
  ];
}

const textOf = (content: { text: string }[]) => content.map((part) => part.text).join('');

function recordOf(hook: HookOutcomeRecord, environmentId: string, callId: string): HookRecord {
  return { ...hook, environment_id: environmentId, call_id: callId };
}

/** The report a call and result step pair stands for (to give a driver the conversation so far). */
export function reportFromSteps(
  call: CallStep,
  result: ResultStep,
  environmentId: string,
): ToolCallReport {
  const name = call.type === 'code_execution_call' ? CODE_EXECUTION : call.name;
  // Stored steps are JSON: what the model was shown, or the text it was shown instead (not run).
  const shown: JsonObject | null =
    result.type === 'code_execution_result'
      ? result.structured_result
      : typeof result.result === 'string'
        ? null
        : result.result;
  return {
    call_id: call.id,
    tool_call: { name, args: call.arguments },
    blocked: result.blocked,
    reason: result.blocked && typeof result.result === 'string' ? result.result : null,
    result: shown,
    is_error: result.is_error,
    text_for_model:
      shown === null && typeof result.result === 'string' ? result.result : JSON.stringify(shown),
    hooks: [...call.hooks, ...result.hooks].map((hook) => recordOf(hook, environmentId, call.id)),
  };
}

/** The turns of one interaction, in order. */
export function turnsOf(interaction: Interaction): ConversationTurn[] {
  const turns: ConversationTurn[] = [];
  const calls = new Map<string, CallStep>();
  for (const step of interaction.steps) {
    switch (step.type) {
      case 'user_input':
        turns.push({ role: 'user', text: textOf(step.content) });
        break;
      case 'model_output':
        turns.push({ role: 'model', text: textOf(step.content) });
        break;
      case 'code_execution_call':
      case 'function_call':
        calls.set(step.id, step);
        break;
      case 'code_execution_result':
      case 'function_result': {
        const call = calls.get(step.call_id);
        if (call)
          turns.push({
            role: 'tool_call',
            report: reportFromSteps(call, step, interaction.environment_id),
          });
        break;
      }
    }
  }
  return turns;
}

/**
 * The conversation of a chain of interactions, oldest first; then the input's own `model_output`
 * steps (earlier model turns the client gives as history, docs/gemini-sdks.md).
 */
export function historyOf(
  chain: Interaction[],
  input: string | Record<string, unknown>[] = '',
): ConversationTurn[] {
  const given: ConversationTurn[] =
    typeof input === 'string'
      ? []
      : input
          .filter((item) => item.type === 'model_output')
          .map((item) => ({
            role: 'model',
            text: textOf((item.content ?? []) as { text: string }[]),
          }));
  return [...chain.flatMap(turnsOf), ...given];
}

/** The text of the model_output steps after the last tool step (what the model finally said). */
export function outputTextOf(steps: Step[]): string {
  const texts: string[] = [];
  for (const step of steps) {
    if (step.type === 'model_output') texts.push(textOf(step.content));
    else if (step.type !== 'user_input') texts.length = 0;
  }
  return texts.join('\n');
}

/** The text items of an input, as the user_input step's content (none for a bare list of calls). */
export function userTextOf(
  input: string | Record<string, unknown>[],
): { type: 'text'; text: string }[] {
  if (typeof input === 'string') return input === '' ? [] : [{ type: 'text', text: input }];
  return input
    .filter((item) => item.type === 'text' && typeof item.text === 'string' && item.text !== '')
    .map((item) => ({ type: 'text' as const, text: item.text as string }));
}
