/**
 * How one hook run ended (docs/contract.md §8). `ok` is for post hooks, which cannot decide anything; `ask`
 * (docs/contract.md §11) is a pre hook that wants an approver to decide (docs/dialects.md, "ask").
 */
export const HOOK_OUTCOMES = [
  'allow',
  'deny',
  'ask',
  'error',
  'timeout',
  'unrecognized',
  'skipped',
  'ok',
] as const;
export type HookOutcome = (typeof HOOK_OUTCOMES)[number];

export type HookEvent = 'pre_tool_execution' | 'post_tool_execution';

/** Where a hook ran: inside the sandbox (hooks.json) or in the controller (operator hooks, policies). */
export type HookSource = 'sandbox' | 'controller';

/** One recorded hook run. */
export interface HookRecord {
  source: HookSource;
  environment_id: string;
  call_id: string;
  group: string;
  event: HookEvent;
  /** `command`, `http`, or for controller hooks `policy` / `hook`. */
  type: string;
  /** The command line, URL or hook name that ran. */
  handler: string;
  outcome: HookOutcome;
  reason: string | null;
  exit_code: number | null;
  duration_ms: number;
  /** The group's dialect, when it is not the Gemini format (docs/dialects.md). */
  dialect?: string;
  /** The answer as the hook gave it (stdout, or stderr for a Claude Code exit 2), capped. */
  raw_answer?: string;
  /** `force_ask`: an `ask` that no cached approval satisfies. */
  force?: boolean;
  /** Arguments the hook rewrote the call into (`updatedInput`), in the environment's vocabulary. */
  updated_args?: Record<string, unknown>;
  /** Text the hook added to what the model is shown (`additionalContext`). */
  additional_context?: string;
  /**
   * For sandbox `command` handlers: which process answered, `spawned`, `prestarted`, `worker` or
   * `worker_fallback` (docs/gates.md, "Prestart and workers").
   */
  runner?: 'spawned' | 'prestarted' | 'worker' | 'worker_fallback';
  /** Why the prestarted process or the worker did not answer, when one was expected to. */
  runner_note?: string;
}

/** The controller hook events that belong to no tool call (docs/policies.md). */
export const LIFECYCLE_EVENT_NAMES = [
  'environment_start',
  'environment_end',
  'interaction_start',
  'interaction_end',
] as const;

/** The lifecycle events, which have no tool call and so no place in a {@link HookRecord}. */
export type LifecycleEventName = (typeof LIFECYCLE_EVENT_NAMES)[number];

/**
 * The record of a controller hook run on a lifecycle event: a {@link HookRecord} with the
 * lifecycle event instead of a tool event and the interaction instead of a call.
 */
export interface LifecycleHookRecord extends Omit<HookRecord, 'event' | 'call_id'> {
  event: LifecycleEventName;
  /** `null` for environment events. */
  interaction_id: string | null;
}

/** The SDKs' status values hookbox uses for an interaction (docs/contract.md §9). */
export const INTERACTION_STATUSES = [
  'queued',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
  'requires_action',
] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];
