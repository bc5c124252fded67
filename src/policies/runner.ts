import { UserError } from '../errors/errors.js';
import type { HookOutcome, HookRecord } from '../record/types.js';
import type { ToolCall, ToolResult } from '../tools/types.js';
import {
  lifecycleRecord,
  toolCallRecord,
  type LifecycleEventName,
  type LifecycleHookRecord,
} from './controller-record.js';
import { frozenCopy, isPlainObject } from './frozen-copy.js';
import type {
  EnvironmentScope,
  HookContext,
  InteractionScope,
  ToolCallScope,
} from './hook-context.js';
import { HOOK_EVENT_NAMES, type Hook, type HookEventName, type ToolArguments } from './hook.js';
import { eventsHandledBy, validateHooks } from './hook-validation.js';
import { describeError, invokeHook, type Settlement } from './invoke-hook.js';

export interface HookRunnerOptions {
  /**
   * Recorded as the `group` of every record, to tell controller hooks apart from hooks.json groups.
   * @default 'controller'
   */
  group?: string;
  /**
   * How long one hook invocation may take unless the hook sets its own `timeoutMs`. A decision that
   * does not come in time fails closed, like a hook that throws.
   * @default 30_000
   */
  hookTimeoutMs?: number;
}

/** The answer to {@link HookRunner.onEnvironmentStart}, `onEnvironmentEnd` and `onInteractionEnd`. */
export interface ObserverOutcome {
  records: LifecycleHookRecord[];
}

export interface InteractionStartOutcome {
  /** Whether the turn must not run. */
  refused: boolean;
  /** Why it was refused, for the caller to show; `null` when it was not. */
  reason: string | null;
  records: LifecycleHookRecord[];
}

export interface BeforeToolCallOutcome {
  /** Whether the call must not reach the sandbox (its gates included). */
  blocked: boolean;
  /** The text the model is shown for a blocked call; `null` when it was not blocked. */
  reason: string | null;
  /**
   * The arguments the call goes on with, after every rewrite: pass these to the sandbox gates and the
   * tool, after validating them against the tool's schema again (a hook may write anything).
   * The same object as `originalArgs` when no hook rewrote them.
   */
  args: ToolArguments;
  /** The arguments as the caller sent them, for the record; never modified. */
  originalArgs: ToolArguments;
  /** The hooks that rewrote the arguments, in order. */
  rewrittenBy: string[];
  records: HookRecord[];
}

export interface AfterToolCallOutcome {
  /** What the model is shown: the raw result, a hook's rewrite of it, or an error when it is withheld. */
  presented: ToolResult;
  /** The result as the tool gave it, for the record; the same object the caller passed, never modified. */
  raw: ToolResult;
  /** True when a hook failed and the model is shown an error instead of the result: mark the step as an error. */
  withheld: boolean;
  records: HookRecord[];
}

export interface ToolErrorOutcome {
  /** The error text the model is shown. The call stays failed whatever this says. */
  message: string;
  /** The error text as the caller passed it, for the record. */
  originalMessage: string;
  records: HookRecord[];
}

const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/**
 * Dispatches controller hook events. Every method runs the hooks that handle the event one at a time,
 * in registration order, and returns records shaped like the sandbox's so both go in one record.
 *
 * - Observers (environment start and end, interaction end) all run; a failing one is recorded and
 *   does not stop the others.
 * - Decisions (interaction start, before tool call): the first hook with an opinion wins; an allow or
 *   a deny ends the dispatch and the remaining hooks are recorded as `skipped`. A hook that throws,
 *   rejects, times out or answers something unrecognized refuses: a gate that cannot decide must not
 *   fall open. Argument rewrites chain: each later hook sees the rewritten arguments.
 * - Presentation (after tool call, tool error): rewrites chain; a hook that fails withholds what it
 *   was meant to clean up, so a broken redaction hook cannot leak; an unrecognized answer is ignored.
 *   Nothing a tool-error hook returns can turn the failed call into a success.
 */
export class HookRunner {
  readonly hooks: readonly Hook[];
  private readonly group: string;
  private readonly hookTimeoutMs: number;
  private readonly hooksByEvent: ReadonlyMap<HookEventName, readonly Hook[]>;

  constructor(hooks: readonly Hook[], options: HookRunnerOptions = {}) {
    this.hooks = Object.freeze(validateHooks(hooks));
    this.group = options.group ?? 'controller';
    this.hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    if (this.group.trim() === '') {
      throw new UserError('invalid_argument', 'group: must not be empty', {
        details: { field: 'group' },
      });
    }
    if (!Number.isFinite(this.hookTimeoutMs) || this.hookTimeoutMs <= 0) {
      throw new UserError(
        'invalid_argument',
        'hookTimeoutMs: must be a positive number of milliseconds',
        {
          details: { field: 'hookTimeoutMs' },
        },
      );
    }
    this.hooksByEvent = new Map(
      HOOK_EVENT_NAMES.map((event) => [
        event,
        this.hooks.filter((hook) => eventsHandledBy(hook).has(event)),
      ]),
    );
  }

  onEnvironmentStart(scope: EnvironmentScope): Promise<ObserverOutcome> {
    return this.observe(
      'environment_start',
      { ...scope, interactionId: null },
      scope,
      (hook, context) => hook.onEnvironmentStart?.(context),
    );
  }

  onEnvironmentEnd(scope: EnvironmentScope): Promise<ObserverOutcome> {
    return this.observe(
      'environment_end',
      { ...scope, interactionId: null },
      scope,
      (hook, context) => hook.onEnvironmentEnd?.(context),
    );
  }

  onInteractionEnd(scope: InteractionScope): Promise<ObserverOutcome> {
    return this.observe('interaction_end', scope, scope, (hook, context) =>
      hook.onInteractionEnd?.(context),
    );
  }

  async onInteractionStart(scope: InteractionScope): Promise<InteractionStartOutcome> {
    const records: LifecycleHookRecord[] = [];
    const where = {
      environmentId: scope.environmentId,
      interactionId: scope.interactionId,
      group: this.group,
    };
    const hooks = this.hooksFor('interaction_start');
    for (const [index, hook] of hooks.entries()) {
      const settlement = await this.invoke(hook, scope, (context) =>
        hook.onInteractionStart?.(context),
      );
      const verdict = readVerdict(hook, settlement, 'turn', this.timeoutOf(hook), false);
      records.push(lifecycleRecord(where, 'interaction_start', hook, verdict.record));
      if (verdict.kind === 'no_opinion') continue;
      for (const skipped of hooks.slice(index + 1)) {
        records.push(
          lifecycleRecord(
            where,
            'interaction_start',
            skipped,
            skippedFields(hook, verdict.record.outcome),
          ),
        );
      }
      return verdict.kind === 'allow'
        ? { refused: false, reason: null, records }
        : { refused: true, reason: verdict.reason, records };
    }
    return { refused: false, reason: null, records };
  }

  async beforeToolCall(scope: ToolCallScope, call: ToolCall): Promise<BeforeToolCallOutcome> {
    const records: HookRecord[] = [];
    const rewrittenBy: string[] = [];
    const where = this.toolCallWhere(scope);
    const originalArgs = call.args;
    let args = originalArgs;
    // One frozen copy per version of the arguments: cheap, and no hook can reach the caller's object.
    let frozenCall = frozenCopy({ name: call.name, args });
    const finish = (blocked: boolean, reason: string | null): BeforeToolCallOutcome => ({
      blocked,
      reason,
      args: args === originalArgs ? originalArgs : structuredClone(args),
      originalArgs,
      rewrittenBy,
      records,
    });
    const hooks = this.hooksFor('before_tool_call');
    for (const [index, hook] of hooks.entries()) {
      const settlement = await this.invoke(hook, scope, (context) =>
        hook.beforeToolCall?.(context, frozenCall),
      );
      const verdict = readVerdict(hook, settlement, 'call', this.timeoutOf(hook), true);
      records.push(toolCallRecord(where, 'before_tool_call', hook, verdict.record));
      if (verdict.args !== undefined) {
        args = verdict.args;
        frozenCall = Object.freeze({ name: call.name, args });
        rewrittenBy.push(hook.name);
      }
      if (verdict.kind === 'no_opinion') continue;
      for (const skipped of hooks.slice(index + 1)) {
        records.push(
          toolCallRecord(
            where,
            'before_tool_call',
            skipped,
            skippedFields(hook, verdict.record.outcome),
          ),
        );
      }
      return verdict.kind === 'allow' ? finish(false, null) : finish(true, verdict.reason);
    }
    return finish(false, null);
  }

  async afterToolCall(
    scope: ToolCallScope,
    call: ToolCall,
    rawResult: ToolResult,
  ): Promise<AfterToolCallOutcome> {
    const records: HookRecord[] = [];
    const where = this.toolCallWhere(scope);
    const frozenCall = frozenCopy(call);
    let presented = rawResult;
    let frozenPresented = frozenCopy(rawResult);
    const hooks = this.hooksFor('after_tool_call');
    for (const [index, hook] of hooks.entries()) {
      const settlement = await this.invoke(hook, scope, (context) =>
        hook.afterToolCall?.(context, frozenCall, frozenPresented),
      );
      if (settlement.kind !== 'returned') {
        records.push(
          toolCallRecord(
            where,
            'after_tool_call',
            hook,
            failureFields(hook, settlement, this.timeoutOf(hook), 'the result is withheld'),
          ),
        );
        for (const skipped of hooks.slice(index + 1)) {
          records.push(
            toolCallRecord(
              where,
              'after_tool_call',
              skipped,
              skippedFields(hook, settlement.kind === 'threw' ? 'error' : 'timeout'),
            ),
          );
        }
        return {
          presented: { error: `the result is withheld because hook "${hook.name}" failed` },
          raw: rawResult,
          withheld: true,
          records,
        };
      }
      const rewrite = readRewrite(settlement.value, 'result', isPlainObject);
      if (rewrite.kind === 'rewritten') {
        frozenPresented = rewrite.frozenValue;
        presented = structuredClone(rewrite.frozenValue);
      }
      records.push(
        toolCallRecord(
          where,
          'after_tool_call',
          hook,
          rewriteFields(rewrite.kind, 'result', settlement),
        ),
      );
    }
    return { presented, raw: rawResult, withheld: false, records };
  }

  async onToolError(
    scope: ToolCallScope,
    call: ToolCall,
    errorText: string,
  ): Promise<ToolErrorOutcome> {
    const records: HookRecord[] = [];
    const where = this.toolCallWhere(scope);
    const frozenCall = frozenCopy(call);
    let message = errorText;
    const hooks = this.hooksFor('tool_error');
    for (const [index, hook] of hooks.entries()) {
      const current = message;
      const settlement = await this.invoke(hook, scope, (context) =>
        hook.onToolError?.(context, frozenCall, current),
      );
      if (settlement.kind !== 'returned') {
        records.push(
          toolCallRecord(
            where,
            'tool_error',
            hook,
            failureFields(hook, settlement, this.timeoutOf(hook), 'the error text is withheld'),
          ),
        );
        for (const skipped of hooks.slice(index + 1)) {
          records.push(
            toolCallRecord(
              where,
              'tool_error',
              skipped,
              skippedFields(hook, settlement.kind === 'threw' ? 'error' : 'timeout'),
            ),
          );
        }
        return {
          message: `the tool call failed; its error text is withheld because hook "${hook.name}" failed`,
          originalMessage: errorText,
          records,
        };
      }
      // Only a non-empty string can reword: an empty text could read as "no error" to a model.
      const rewrite = readRewrite(settlement.value, 'message', isNonEmptyString);
      if (rewrite.kind === 'rewritten') message = rewrite.frozenValue;
      records.push(
        toolCallRecord(
          where,
          'tool_error',
          hook,
          rewriteFields(rewrite.kind, 'error text', settlement),
        ),
      );
    }
    return { message, originalMessage: errorText, records };
  }

  private hooksFor(event: HookEventName): readonly Hook[] {
    return this.hooksByEvent.get(event) ?? [];
  }

  private timeoutOf(hook: Hook): number {
    return hook.timeoutMs ?? this.hookTimeoutMs;
  }

  private toolCallWhere(scope: ToolCallScope): {
    environmentId: string;
    callId: string;
    group: string;
  } {
    return { environmentId: scope.environmentId, callId: scope.callId, group: this.group };
  }

  private invoke<Scope extends object>(
    hook: Hook,
    scope: Scope,
    run: (context: HookContext<Scope>) => unknown,
  ): Promise<Settlement> {
    return invokeHook((signal) => run(Object.freeze({ ...scope, signal })), this.timeoutOf(hook));
  }

  private async observe<Scope extends object>(
    event: LifecycleEventName,
    where: { environmentId: string; interactionId: string | null },
    scope: Scope,
    run: (hook: Hook, context: HookContext<Scope>) => unknown,
  ): Promise<ObserverOutcome> {
    const records: LifecycleHookRecord[] = [];
    const recordWhere = { ...where, group: this.group };
    for (const hook of this.hooksFor(event)) {
      const settlement = await this.invoke(hook, scope, (context) => run(hook, context));
      const fields: RecordFields =
        settlement.kind !== 'returned'
          ? failureFields(hook, settlement, this.timeoutOf(hook), 'the other hooks still run')
          : settlement.value === undefined || settlement.value === null
            ? { outcome: 'ok', reason: null, durationMs: settlement.durationMs }
            : {
                outcome: 'unrecognized',
                reason: `hook "${hook.name}" returned a value from an observer event; it is ignored`,
                durationMs: settlement.durationMs,
              };
      records.push(lifecycleRecord(recordWhere, event, hook, fields));
    }
    return { records };
  }
}

interface RecordFields {
  outcome: HookOutcome;
  reason: string | null;
  durationMs: number;
}

type Verdict =
  | { kind: 'no_opinion'; args?: ToolArguments; record: RecordFields }
  | { kind: 'allow'; args?: ToolArguments; record: RecordFields }
  | { kind: 'deny'; reason: string; args?: undefined; record: RecordFields };

/**
 * Reads a decision hook's answer. Anything that is not clearly "no opinion", "allow" or a rewrite
 * refuses, because a typo in a gate (`{decison: 'deny'}`) must not let calls through.
 */
function readVerdict(
  hook: Hook,
  settlement: Settlement,
  subject: 'call' | 'turn',
  timeoutMs: number,
  mayRewriteArgs: boolean,
): Verdict {
  const refuse = (outcome: HookOutcome, reason: string): Verdict => ({
    kind: 'deny',
    reason,
    record: { outcome, reason, durationMs: settlement.durationMs },
  });
  if (settlement.kind === 'threw') {
    return refuse(
      'error',
      `hook "${hook.name}" failed, so the ${subject} is refused: ${describeError(settlement.error)}`,
    );
  }
  if (settlement.kind === 'timed_out') {
    return refuse(
      'timeout',
      `hook "${hook.name}" did not decide within ${timeoutMs} ms, so the ${subject} is refused`,
    );
  }
  const { value, durationMs } = settlement;
  const unrecognized = (): Verdict =>
    refuse(
      'unrecognized',
      `hook "${hook.name}" returned something that is not a decision, so the ${subject} is refused`,
    );
  if (value === undefined || value === null) {
    return { kind: 'no_opinion', record: { outcome: 'allow', reason: null, durationMs } };
  }
  if (!isPlainObject(value)) return unrecognized();
  let args: ToolArguments | undefined;
  if ('args' in value && value['decision'] !== 'deny') {
    if (!mayRewriteArgs || !isPlainObject(value['args'])) return unrecognized();
    try {
      args = frozenCopy(value['args']);
    } catch {
      return unrecognized();
    }
  }
  const rewroteNote = args === undefined ? null : 'rewrote the arguments';
  switch (value['decision']) {
    case undefined:
      return args === undefined
        ? unrecognized()
        : {
            kind: 'no_opinion',
            args,
            record: { outcome: 'allow', reason: rewroteNote, durationMs },
          };
    case 'allow': {
      const reason =
        typeof value['reason'] === 'string' && value['reason'] !== '' ? value['reason'] : null;
      const recorded = [reason, rewroteNote].filter((part) => part !== null).join('; ') || null;
      return { kind: 'allow', args, record: { outcome: 'allow', reason: recorded, durationMs } };
    }
    case 'deny': {
      // An intended refusal without a reason still refuses; the model is told who refused.
      const reason =
        typeof value['reason'] === 'string' && value['reason'].trim() !== ''
          ? value['reason']
          : `the ${subject} was refused by hook "${hook.name}"`;
      return { kind: 'deny', reason, record: { outcome: 'deny', reason, durationMs } };
    }
    default:
      return unrecognized();
  }
}

type Rewrite<T> =
  { kind: 'unchanged' } | { kind: 'rewritten'; frozenValue: T } | { kind: 'unrecognized' };

/** Reads a presentation hook's answer: nothing, or an object whose only meaningful key is `key`. */
function readRewrite<T>(
  value: unknown,
  key: 'result' | 'message',
  isValid: (candidate: unknown) => candidate is T,
): Rewrite<T> {
  if (value === undefined || value === null) return { kind: 'unchanged' };
  if (!isPlainObject(value) || !isValid(value[key])) return { kind: 'unrecognized' };
  try {
    return { kind: 'rewritten', frozenValue: frozenCopy(value[key]) };
  } catch {
    return { kind: 'unrecognized' };
  }
}

function rewriteFields(
  kind: Rewrite<unknown>['kind'],
  what: string,
  settlement: { durationMs: number },
): RecordFields {
  const reason =
    kind === 'rewritten'
      ? `rewrote the ${what}`
      : kind === 'unrecognized'
        ? `returned something unrecognized; the ${what} is kept as it was`
        : null;
  return {
    outcome: kind === 'unrecognized' ? 'unrecognized' : 'ok',
    reason,
    durationMs: settlement.durationMs,
  };
}

function failureFields(
  hook: Hook,
  settlement: Exclude<Settlement, { kind: 'returned' }>,
  timeoutMs: number,
  consequence: string,
): RecordFields {
  return settlement.kind === 'threw'
    ? {
        outcome: 'error',
        reason: `hook "${hook.name}" failed: ${describeError(settlement.error)}; ${consequence}`,
        durationMs: settlement.durationMs,
      }
    : {
        outcome: 'timeout',
        reason: `hook "${hook.name}" did not finish within ${timeoutMs} ms; ${consequence}`,
        durationMs: settlement.durationMs,
      };
}

/** Only a non-empty text may reword an error: an empty one could read as "no error" to a model. */
function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** @param decidingOutcome how the hook that ended the dispatch ended. */
function skippedFields(decidedBy: Hook, decidingOutcome: HookOutcome): RecordFields {
  const reason =
    decidingOutcome === 'allow' || decidingOutcome === 'deny'
      ? `not run: hook "${decidedBy.name}" already decided (${decidingOutcome})`
      : `not run: hook "${decidedBy.name}" failed (${decidingOutcome})`;
  return { outcome: 'skipped', reason, durationMs: 0 };
}
