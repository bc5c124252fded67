import type { InteractionFacts } from '../record/observations.js';
import type { HookRecord } from '../record/types.js';

import type { Interaction, Step } from './schema.js';

/** One call of an interaction, with its pre and post hook runs. */
export interface InteractionCall {
  call_id: string;
  tool: string;
  /** `waiting` is reported as `blocked` with an `ask` hook run, as a live call is observed. */
  outcome: 'ok' | 'blocked' | 'error';
  waiting: boolean;
  reason: string | null;
  hooks: HookRecord[];
}

type CallStep = Extract<Step, { type: 'code_execution_call' | 'function_call' }>;
type ResultStep = Extract<Step, { type: 'code_execution_result' | 'function_result' }>;

const isCall = (step: Step): step is CallStep =>
  step.type === 'code_execution_call' || step.type === 'function_call';
const isResult = (step: Step): step is ResultStep =>
  step.type === 'code_execution_result' || step.type === 'function_result';

/** The reason a blocked result holds: the deny reason, as the model was shown it. */
function reasonOf(result: ResultStep): string | null {
  return typeof result.result === 'string' ? result.result : null;
}

/**
 * The calls of an interaction, in order, from its steps: each call step with its result (a call
 * held for an approver has none yet; one with neither result nor approval is left out).
 */
export function callsOfInteraction(interaction: Pick<Interaction, 'steps' | 'pending_approvals'>) {
  const results = new Map<string, ResultStep>();
  for (const step of interaction.steps) if (isResult(step)) results.set(step.call_id, step);
  const pending = new Map(
    (interaction.pending_approvals ?? [])
      .filter((approval) => approval.status === 'pending')
      .map((approval) => [approval.call_id, approval]),
  );
  const calls: InteractionCall[] = [];
  for (const step of interaction.steps) {
    if (!isCall(step)) continue;
    const tool = step.type === 'function_call' ? step.name : 'code_execution';
    const result = results.get(step.id);
    const approval = pending.get(step.id);
    if (!result && !approval) continue;
    calls.push({
      call_id: step.id,
      tool,
      outcome: approval || result?.blocked ? 'blocked' : result?.is_error ? 'error' : 'ok',
      waiting: approval !== undefined,
      reason: approval ? approval.reason : result?.blocked ? reasonOf(result) : null,
      hooks: [...(step.hooks as HookRecord[]), ...((result?.hooks ?? []) as HookRecord[])],
    });
  }
  return calls;
}

const distinct = <T>(values: T[]): T[] => [...new Set(values)].sort();

/** The facts the console lists and filters an interaction by (docs/console.md, "Pages"). */
export function interactionFacts(
  interaction: Pick<Interaction, 'steps' | 'pending_approvals'>,
): InteractionFacts {
  const calls = callsOfInteraction(interaction);
  return {
    steps: interaction.steps.length,
    denials: interaction.steps.filter((step) => 'blocked' in step && step.blocked === true).length,
    tools: distinct(calls.map((call) => call.tool)),
    gates: distinct(calls.flatMap((call) => call.hooks.map((hook) => hook.group))),
    call_outcomes: distinct(calls.map((call) => (call.waiting ? 'waiting' : call.outcome))),
  };
}
