import type { HookGroup, HookHandler, HookRule, HooksConfig } from '../config/hooks-config.js';
import type { HookEvent, HookRecord } from '../record/types.js';
import type { ToolCall, JsonObject } from '../tools/types.js';
import type { HookCallContext } from './call-context.js';
import type { HandlerRun, PostDecision, PreDecision } from './decision.js';
import { dialectOf, type Dialect } from './dialects/index.js';

export type { HookCallContext } from './call-context.js';

/**
 * Runs one handler with the event JSON on its stdin (the sandbox agent, for `command` handlers).
 * `call` is the call's own context: the executor may take the code sent with the call's pre hook
 * from it, and put what the agent answered for that code back (src/hooks/call-context.ts).
 */
export interface HandlerExecutor {
  run(
    handler: HookHandler,
    stdin: string,
    env: Record<string, string>,
    call: HookCallContext,
  ): Promise<HandlerRun & { duration_ms: number }>;
}

/** A pre hook that answered `ask` (docs/contract.md §11): the call waits for an approver. */
export interface AskRequest {
  group: string;
  handler: string;
  reason: string | null;
  /** `force_ask`: no cached approval satisfies it. */
  force: boolean;
}

export interface PreHooksResult {
  blocked: boolean;
  reason: string | null;
  records: HookRecord[];
  /** The call as it now stands: a hook's `updatedInput` rewrites it for the hooks after it. */
  call: ToolCall;
  /** Every `ask`, in order; empty when no hook asked. */
  asks: AskRequest[];
  /** `additionalContext` of the hooks, for the model. */
  additionalContext: string[];
}

/**
 * Checks a rewritten call against its tool's schema (docs/dialects.md, "Stdin, answers and rewrites"): the
 * checked call, or why it is refused.
 */
export type CallValidator = (call: ToolCall) => ToolCall | { error: string };

interface MatchingHandler {
  group: HookGroup;
  dialect: Dialect;
  handler: HookHandler;
}

/**
 * Every handler that fires for a call, in order: groups in file order, rules, then handlers. A
 * dialect group's matchers see the tool's name in that agent's vocabulary (`Bash`, `run_command`),
 * and an event that fires only for some calls (Cursor's `beforeShellExecution`) skips the others.
 */
export function matchingHandlers(
  config: HooksConfig,
  event: HookEvent,
  call: ToolCall,
): MatchingHandler[] {
  const out: MatchingHandler[] = [];
  for (const group of config.groups) {
    if (!group.enabled) continue;
    const rules: HookRule[] = group[event];
    for (const rule of rules) {
      const dialect = dialectOf(group.dialect, rule.event);
      if (dialect.fires && !dialect.fires(call)) continue;
      const names = [dialect.toolName(call), ...(dialect.aliases?.(call) ?? [])];
      if (!names.some((name) => rule.matcher.matches(name))) continue;
      for (const handler of rule.handlers) out.push({ group, dialect, handler });
    }
  }
  return out;
}

function handlerText(handler: HookHandler): string {
  return handler.type === 'command' ? handler.command : handler.url;
}

function hookEnv(
  event: HookEvent,
  context: HookCallContext,
  dialect: Dialect,
): Record<string, string> {
  return {
    HOOKBOX_EVENT: event,
    HOOKBOX_TOOL_NAME: context.toolName,
    HOOKBOX_ENVIRONMENT_ID: context.environmentId,
    HOOKBOX_STATE_DIR: context.stateDir,
    HOOKBOX_CALL_ID: context.callId,
    ...dialect.env(),
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
    group: entry.group.name,
    event,
    type: entry.handler.type,
    handler: handlerText(entry.handler),
    ...(entry.group.dialect === 'gemini' ? {} : { dialect: entry.group.dialect }),
  };
}

/** The fields a decision adds to its record. */
function answerFields(decision: PreDecision | PostDecision): Partial<HookRecord> {
  return {
    ...(decision.rawAnswer === undefined ? {} : { raw_answer: decision.rawAnswer }),
    ...(decision.additionalContext === undefined
      ? {}
      : { additional_context: decision.additionalContext }),
    ...('force' in decision && decision.outcome === 'ask'
      ? { force: decision.force === true }
      : {}),
  };
}

/** Serialises a dialect's payload once per call state (most groups share one dialect). */
class Payloads {
  private readonly cache = new Map<Dialect, string>();
  constructor(private readonly build: (dialect: Dialect) => unknown) {}
  of(dialect: Dialect): string {
    let text = this.cache.get(dialect);
    if (text === undefined) {
      text = JSON.stringify(this.build(dialect));
      this.cache.set(dialect, text);
    }
    return text;
  }
}

/**
 * Runs the pre hooks one at a time. The first deny stops the rest: each matching handler not run
 * is recorded as `skipped`, and the call is blocked. An `ask` does not stop them (a later deny still
 * blocks outright); the caller settles the asks. A dialect hook's `updatedInput` is mapped back,
 * validated, and is the call the hooks after it see; a rewrite that cannot be carried back or that
 * the tool's schema refuses blocks the call.
 */
export async function runPreHooks(
  config: HooksConfig,
  executor: HandlerExecutor,
  call: ToolCall,
  context: HookCallContext,
  onRecord: (record: HookRecord) => void = () => {},
  validate: CallValidator = (checked) => checked,
): Promise<PreHooksResult> {
  const result: PreHooksResult = {
    blocked: false,
    reason: null,
    records: [],
    call,
    asks: [],
    additionalContext: [],
  };
  const handlers = matchingHandlers(config, 'pre_tool_execution', call);
  if (handlers.length === 0) return result;
  const payloadsFor = (current: ToolCall) =>
    new Payloads((dialect) =>
      dialect.prePayload({
        environmentId: context.environmentId,
        callId: context.callId,
        call: current,
      }),
    );
  let payloads = payloadsFor(call);
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
      const env = hookEnv('pre_tool_execution', context, entry.dialect);
      const run = await executor.run(entry.handler, payloads.of(entry.dialect), env, context);
      const decision = entry.dialect.decidePre(run, entry.handler);
      let updatedArgs: Record<string, unknown> | undefined;
      if (decision.updatedInput && !decision.blocks && entry.dialect.mapBack) {
        const mapped = entry.dialect.mapBack(decision.updatedInput, result.call);
        const checked = 'error' in mapped ? mapped : validate(mapped);
        if ('error' in checked) {
          decision.outcome = 'deny';
          decision.blocks = true;
          decision.reason = `the hook's updatedInput was refused: ${checked.error}`;
        } else if (JSON.stringify(checked.args) !== JSON.stringify(result.call.args)) {
          updatedArgs = checked.args;
          result.call = checked;
          payloads = payloadsFor(checked);
        }
      }
      record = {
        ...baseRecord(context, 'pre_tool_execution', entry),
        outcome: decision.outcome,
        reason: decision.reason,
        exit_code: run.exit_code,
        duration_ms: run.duration_ms,
        ...answerFields(decision),
        ...(updatedArgs ? { updated_args: updatedArgs } : {}),
        ...runnerOf(run),
      };
      if (decision.additionalContext) result.additionalContext.push(decision.additionalContext);
      if (decision.outcome === 'ask' && !decision.blocks) {
        result.asks.push({
          group: entry.group.name,
          handler: handlerText(entry.handler),
          reason: decision.reason,
          force: decision.force === true,
        });
      }
      if (decision.blocks) blockedBy = decision.reason;
    }
    result.records.push(record);
    onRecord(record);
  }
  result.blocked = blockedBy !== undefined;
  result.reason = blockedBy ?? null;
  return result;
}

/**
 * Runs the post hooks one at a time; they cannot block or undo. A dialect hook's words for the
 * model (`additionalContext`, Claude Code's exit 2 stderr) are collected.
 */
export async function runPostHooks(
  config: HooksConfig,
  executor: HandlerExecutor,
  call: ToolCall,
  outcome: { result: JsonObject; error?: string },
  context: HookCallContext,
  onRecord: (record: HookRecord) => void = () => {},
): Promise<{ records: HookRecord[]; additionalContext: string[] }> {
  const records: HookRecord[] = [];
  const additionalContext: string[] = [];
  const handlers = matchingHandlers(config, 'post_tool_execution', call);
  // Most calls match no post hook: then the payload (which holds the whole result) is not serialised.
  if (handlers.length === 0) return { records, additionalContext };
  const payloads = new Payloads((dialect) =>
    dialect.postPayload(
      { environmentId: context.environmentId, callId: context.callId, call },
      outcome,
    ),
  );
  for (const entry of handlers) {
    const env = hookEnv('post_tool_execution', context, entry.dialect);
    const run = await executor.run(entry.handler, payloads.of(entry.dialect), env, context);
    const decision = entry.dialect.decidePost(run, entry.handler);
    const record: HookRecord = {
      ...baseRecord(context, 'post_tool_execution', entry),
      outcome: decision.outcome,
      reason: decision.reason,
      exit_code: run.exit_code,
      duration_ms: run.duration_ms,
      ...answerFields(decision),
      ...runnerOf(run),
    };
    if (decision.additionalContext) additionalContext.push(decision.additionalContext);
    records.push(record);
    onRecord(record);
  }
  return { records, additionalContext };
}
