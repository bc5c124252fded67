import type { HookHandler, HookRule, HooksConfig } from '../config/hooks-config.js';
import type { HookEvent, HookRecord } from '../record/types.js';
import { decidePost, decidePre, type HandlerRun } from './decision.js';

/** Runs one handler with the event JSON on its stdin (the sandbox agent, for `command` handlers). */
export interface HandlerExecutor {
  run(
    handler: HookHandler,
    stdin: string,
    env: Record<string, string>,
  ): Promise<HandlerRun & { duration_ms: number }>;
}

export interface HookCallContext {
  environmentId: string;
  callId: string;
  toolName: string;
  stateDir: string;
}

export interface PreHooksResult {
  blocked: boolean;
  reason: string | null;
  records: HookRecord[];
}

interface MatchingHandler {
  group: string;
  handler: HookHandler;
}

/** Every handler that fires for a tool, in order: groups in file order, rules, then handlers. */
export function matchingHandlers(
  config: HooksConfig,
  event: HookEvent,
  toolName: string,
): MatchingHandler[] {
  const out: MatchingHandler[] = [];
  for (const group of config.groups) {
    if (!group.enabled) continue;
    const rules: HookRule[] = group[event];
    for (const rule of rules) {
      if (!rule.matcher.matches(toolName)) continue;
      for (const handler of rule.handlers) out.push({ group: group.name, handler });
    }
  }
  return out;
}

function handlerText(handler: HookHandler): string {
  return handler.type === 'command' ? handler.command : handler.url;
}

function hookEnv(event: HookEvent, context: HookCallContext): Record<string, string> {
  return {
    HOOKBOX_EVENT: event,
    HOOKBOX_TOOL_NAME: context.toolName,
    HOOKBOX_ENVIRONMENT_ID: context.environmentId,
    HOOKBOX_STATE_DIR: context.stateDir,
    HOOKBOX_CALL_ID: context.callId,
  };
}

/** Which process answered, when the agent said (command handlers). */
function runnerOf(run: HandlerRun): Pick<HookRecord, 'runner' | 'runner_note'> {
  return {
    ...(run.runner === undefined ? {} : { runner: run.runner }),
    ...(run.runner_note === undefined ? {} : { runner_note: run.runner_note }),
  };
}

function baseRecord(context: HookCallContext, event: HookEvent, entry: MatchingHandler) {
  return {
    source: 'sandbox' as const,
    environment_id: context.environmentId,
    call_id: context.callId,
    group: entry.group,
    event,
    type: entry.handler.type,
    handler: handlerText(entry.handler),
  };
}

/**
 * Runs the pre hooks one at a time. The first deny stops the rest: each matching handler not run
 * is recorded as `skipped`, and the call is blocked.
 */
export async function runPreHooks(
  config: HooksConfig,
  executor: HandlerExecutor,
  payload: unknown,
  context: HookCallContext,
  onRecord: (record: HookRecord) => void = () => {},
): Promise<PreHooksResult> {
  const records: HookRecord[] = [];
  const handlers = matchingHandlers(config, 'pre_tool_execution', context.toolName);
  if (handlers.length === 0) return { blocked: false, reason: null, records };
  const stdin = JSON.stringify(payload);
  const env = hookEnv('pre_tool_execution', context);
  let blockedBy: string | null | undefined;
  for (const entry of handlers) {
    let record: HookRecord;
    if (blockedBy !== undefined) {
      record = {
        ...baseRecord(context, 'pre_tool_execution', entry),
        outcome: 'skipped',
        reason: 'an earlier hook blocked the call',
        exit_code: null,
        duration_ms: 0,
      };
    } else {
      const run = await executor.run(entry.handler, stdin, env);
      const decision = decidePre(run, entry.handler);
      record = {
        ...baseRecord(context, 'pre_tool_execution', entry),
        outcome: decision.outcome,
        reason: decision.reason,
        exit_code: run.exit_code,
        duration_ms: run.duration_ms,
        ...runnerOf(run),
      };
      if (decision.blocks) blockedBy = decision.reason;
    }
    records.push(record);
    onRecord(record);
  }
  return { blocked: blockedBy !== undefined, reason: blockedBy ?? null, records };
}

/** Runs the post hooks one at a time; their output is ignored and they cannot block or undo. */
export async function runPostHooks(
  config: HooksConfig,
  executor: HandlerExecutor,
  payload: unknown,
  context: HookCallContext,
  onRecord: (record: HookRecord) => void = () => {},
): Promise<HookRecord[]> {
  const records: HookRecord[] = [];
  const handlers = matchingHandlers(config, 'post_tool_execution', context.toolName);
  // Most calls match no post hook: then the payload (which holds the whole result) is not serialised.
  if (handlers.length === 0) return records;
  const stdin = JSON.stringify(payload);
  const env = hookEnv('post_tool_execution', context);
  for (const entry of handlers) {
    const run = await executor.run(entry.handler, stdin, env);
    const decision = decidePost(run, entry.handler);
    const record: HookRecord = {
      ...baseRecord(context, 'post_tool_execution', entry),
      outcome: decision.outcome,
      reason: decision.reason,
      exit_code: run.exit_code,
      duration_ms: run.duration_ms,
      ...runnerOf(run),
    };
    records.push(record);
    onRecord(record);
  }
  return records;
}
