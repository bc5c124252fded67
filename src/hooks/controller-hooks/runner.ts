import { UserError } from '../../errors/errors.js';
import type { HookRecord, LifecycleEventName, LifecycleHookRecord } from '../../record/types.js';
import type { ToolCall, PresentedResult } from '../../tools/types.js';
import { lifecycleRecord, toolCallRecord } from './controller-record.js';
import { frozenCopy, isPlainObject } from './frozen-copy.js';
import type {
  EnvironmentScope,
  HookContext,
  InteractionScope,
  ToolCallScope,
} from './hook-context.js';
import { HOOK_EVENT_NAMES, type Hook, type HookEventName } from './hook.js';
import {
  failureFields,
  isNonEmptyString,
  readRewrite,
  readVerdict,
  rewriteFields,
  skippedRecords,
  type RecordFields,
} from './hook-answers.js';
import { eventsHandledBy, validateHooks } from './hook-validation.js';
import { invokeHook, type Settlement } from './invoke-hook.js';
import type {
  AfterToolCallOutcome,
  BeforeToolCallOutcome,
  HookRunnerOptions,
  InteractionStartOutcome,
  ObserverOutcome,
  ToolErrorOutcome,
} from './runner-outcomes.js';

export type {
  AfterToolCallOutcome,
  BeforeToolCallOutcome,
  HookRunnerOptions,
  InteractionStartOutcome,
  ObserverOutcome,
  ToolErrorOutcome,
} from './runner-outcomes.js';

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
    if (typeof this.group !== 'string' || this.group.trim() === '') {
      throw new UserError('invalid_argument', 'group: must be a non-empty string', {
        details: { field: 'group' },
      });
    }
    if (
      typeof this.hookTimeoutMs !== 'number' ||
      !Number.isFinite(this.hookTimeoutMs) ||
      this.hookTimeoutMs <= 0
    ) {
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
      records.push(
        ...skippedRecords(hooks.slice(index + 1), hook, verdict.record.outcome, (skipped, fields) =>
          lifecycleRecord(where, 'interaction_start', skipped, fields),
        ),
      );
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
      records.push(
        ...skippedRecords(hooks.slice(index + 1), hook, verdict.record.outcome, (skipped, fields) =>
          toolCallRecord(where, 'before_tool_call', skipped, fields),
        ),
      );
      return verdict.kind === 'allow' ? finish(false, null) : finish(true, verdict.reason);
    }
    return finish(false, null);
  }

  async afterToolCall(
    scope: ToolCallScope,
    call: ToolCall,
    rawResult: PresentedResult,
  ): Promise<AfterToolCallOutcome> {
    const chain = await this.rewriteChain('after_tool_call', scope, rawResult, {
      key: 'result',
      what: 'result',
      withheld: 'the result is withheld',
      isValid: isPlainObject,
      run: (hook, context, frozenCall, result) => hook.afterToolCall?.(context, frozenCall, result),
      call,
    });
    if (chain.failedHook !== undefined)
      return {
        presented: { error: `the result is withheld because hook "${chain.failedHook}" failed` },
        raw: rawResult,
        withheld: true,
        records: chain.records,
      };
    const presented = chain.rewritten ? structuredClone(chain.frozen) : rawResult;
    return { presented, raw: rawResult, withheld: false, records: chain.records };
  }

  async onToolError(
    scope: ToolCallScope,
    call: ToolCall,
    errorText: string,
  ): Promise<ToolErrorOutcome> {
    // Only a non-empty string can reword: an empty text could read as "no error" to a model.
    const chain = await this.rewriteChain('tool_error', scope, errorText, {
      key: 'message',
      what: 'error text',
      withheld: 'the error text is withheld',
      isValid: isNonEmptyString,
      run: (hook, context, frozenCall, message) => hook.onToolError?.(context, frozenCall, message),
      call,
    });
    const message =
      chain.failedHook !== undefined
        ? `the tool call failed; its error text is withheld because hook "${chain.failedHook}" failed`
        : chain.frozen;
    return { message, originalMessage: errorText, records: chain.records };
  }

  /**
   * Runs a rewriting event's hooks in order (docs/policies.md): each is given what the one before
   * left, and may rewrite it. A hook that fails or times out withholds it: the rest are skipped.
   */
  private async rewriteChain<T>(
    event: 'after_tool_call' | 'tool_error',
    scope: ToolCallScope,
    initial: T,
    spec: {
      key: 'result' | 'message';
      what: string;
      withheld: string;
      isValid: (candidate: unknown) => candidate is T;
      run: (hook: Hook, context: HookContext<ToolCallScope>, call: ToolCall, value: T) => unknown;
      call: ToolCall;
    },
  ): Promise<{ frozen: T; rewritten: boolean; failedHook?: string; records: HookRecord[] }> {
    const records: HookRecord[] = [];
    const where = this.toolCallWhere(scope);
    const frozenCall = frozenCopy(spec.call);
    let frozen = frozenCopy(initial);
    let rewritten = false;
    const hooks = this.hooksFor(event);
    for (const [index, hook] of hooks.entries()) {
      const current = frozen;
      const settlement = await this.invoke(hook, scope, (context) =>
        spec.run(hook, context, frozenCall, current),
      );
      if (settlement.kind !== 'returned') {
        const failed = failureFields(hook, settlement, this.timeoutOf(hook), spec.withheld);
        records.push(
          toolCallRecord(where, event, hook, failed),
          ...skippedRecords(hooks.slice(index + 1), hook, failed.outcome, (skipped, fields) =>
            toolCallRecord(where, event, skipped, fields),
          ),
        );
        return { frozen, rewritten, failedHook: hook.name, records };
      }
      const rewrite = readRewrite(settlement.value, spec.key, spec.isValid);
      if (rewrite.kind === 'rewritten') {
        frozen = rewrite.frozenValue;
        rewritten = true;
      }
      records.push(
        toolCallRecord(where, event, hook, rewriteFields(rewrite.kind, spec.what, settlement)),
      );
    }
    return { frozen, rewritten, records };
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
