import type {
  HookOutcome,
  HookRecord,
  LifecycleEventName,
  LifecycleHookRecord,
} from '../../record/types.js';
import type { Hook } from './hook.js';

/** The tool-call events of the controller, named as the record names the sandbox's. */
export function recordEventOf(
  event: 'before_tool_call' | 'after_tool_call' | 'tool_error',
): HookRecord['event'] {
  return event === 'before_tool_call' ? 'pre_tool_execution' : 'post_tool_execution';
}

export interface RecordFields {
  outcome: HookOutcome;
  reason: string | null;
  durationMs: number;
}

/**
 * The group a run is recorded under: a policy is a group of its own, named as its file names it
 * (so gate health and the record tell policies apart); other hooks share the runner's group
 * (docs/policies.md, "Records").
 */
const groupOf = (hook: Hook, runnerGroup: string): string =>
  hook.kind === 'policy' ? hook.name : runnerGroup;

export function toolCallRecord(
  where: { environmentId: string; callId: string; group: string },
  event: 'before_tool_call' | 'after_tool_call' | 'tool_error',
  hook: Hook,
  fields: RecordFields,
): HookRecord {
  return {
    source: 'controller',
    environment_id: where.environmentId,
    call_id: where.callId,
    group: groupOf(hook, where.group),
    event: recordEventOf(event),
    type: hook.kind ?? 'hook',
    handler: hook.name,
    outcome: fields.outcome,
    reason: fields.reason,
    exit_code: null,
    duration_ms: fields.durationMs,
  };
}

export function lifecycleRecord(
  where: { environmentId: string; interactionId: string | null; group: string },
  event: LifecycleEventName,
  hook: Hook,
  fields: RecordFields,
): LifecycleHookRecord {
  return {
    source: 'controller',
    environment_id: where.environmentId,
    interaction_id: where.interactionId,
    group: groupOf(hook, where.group),
    event,
    type: hook.kind ?? 'hook',
    handler: hook.name,
    outcome: fields.outcome,
    reason: fields.reason,
    exit_code: null,
    duration_ms: fields.durationMs,
  };
}
