/** One tool call's way through an environment: controller hooks, re-validation, the gates, the tool, post hooks, result rewrites. */
import type { HooksConfig } from '../config/hooks-config.js';
import { SystemError } from '../errors/index.js';
import { takeRanAhead, type CallContext } from '../hooks/call-context.js';
import { matchingHandlers, runPostHooks } from '../hooks/hook-engine.js';
import type { ContextStore } from '../hooks/controller-hooks/context-store.js';
import type { HookRunner } from '../hooks/controller-hooks/runner.js';
import { newCallBudget, type AuditBudget } from '../record/audit-bound.js';
import type { HookRecord } from '../record/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import type { ToolCall } from '../tools/types.js';
import type { CallOptions, CallOutcome } from './call-outcome.js';
import { failed } from './call-record.js';
import { controllerBeforeCall, type ResolvedCall } from './call-rewrite.js';
import { runGates } from '../hooks/gates/gate-run.js';
import { rewriteResult } from './result-rewrites.js';
import type { SandboxHandlers } from './sandbox-handlers.js';
import { runTool, toolRequestOf, type ToolRequest } from './tool-run.js';

/** What a call needs of its environment. */
export interface CallSite {
  readonly environmentId: string;
  readonly sandbox: Sandbox;
  readonly vocabulary: VocabularyId;
  readonly settings: ToolRunSettings;
  /** The gates in force for this call. */
  readonly gates: HooksConfig;
  readonly handlers: SandboxHandlers;
  /** The operator's controller-side hooks and policies; they run before the sandbox gates. */
  readonly controllerHooks: HookRunner | undefined;
  /** The environment level of the controller hooks' context store. */
  readonly store: ContextStore;
  /** Records one hook run, within the call's audit budget. */
  record(hook: HookRecord, budget: AuditBudget): void;
  /** Records the call's outcome and returns it. */
  finish(budget: AuditBudget, outcome: CallOutcome): CallOutcome;
}

/**
 * Runs one call, already checked against its tool's schema, through the controller hooks, the
 * gates and the tool (docs/contract.md §5, §6); every hook run and the outcome are recorded.
 * `context` is the call's own (src/hooks/call-context.ts): its id, and where the code language the
 * tool ran is noted.
 */
export async function runCall(
  site: CallSite,
  context: CallContext,
  checked: ResolvedCall,
  options: CallOptions,
): Promise<CallOutcome> {
  const { callId, call: verbatim } = context;
  // What one call may add to the audit log is bounded (docs/operations.md, Audit logs).
  const budget = newCallBudget();
  const record = (hook: HookRecord) => site.record(hook, budget);
  const outcome: CallOutcome = {
    environment_id: site.environmentId,
    call_id: callId,
    tool_call: verbatim,
    blocked: false,
    reason: null,
    result: null,
    presented: null,
    is_error: false,
    hooks: [],
    ...(options.actor === undefined ? {} : { actor: options.actor }),
  };
  // Controller hooks and policies first: a refusal there means the sandbox is never asked.
  let call = verbatim;
  let resolved = checked;
  const scope = site.controllerHooks && {
    environmentId: site.environmentId,
    interactionId: options.interactionId ?? null,
    callId,
    store: (options.interactionStore ?? site.store).createChild('call'),
  };
  if (site.controllerHooks && scope) {
    const before = await controllerBeforeCall(
      site.controllerHooks,
      scope,
      verbatim,
      checked,
      site.vocabulary,
      outcome,
      record,
    );
    if ('refused' in before)
      return site.finish(budget, {
        ...outcome,
        blocked: true,
        reason: before.refused,
        is_error: true,
      });
    ({ call, resolved } = before);
  }
  context.toolName = resolved.tool.name;
  const gates = site.gates;
  const request = toolRequestOf(site.settings, resolved.tool, resolved.args, callId, options);
  runAheadWhereSafe(context, gates, call, request);
  const pre = await runGates({
    gates,
    executor: site.handlers,
    call,
    resolved,
    vocabulary: site.vocabulary,
    context,
    interactionId: options.interactionId ?? null,
    approver: options.approver,
    onRecord: record,
  });
  outcome.hooks.push(...pre.records);
  const rewritten = pre.call !== call;
  const ranAhead = takeRanAhead(context);
  // The agent runs code ahead only on a plain allow of the one native pre hook, which this reading
  // of the hooks also allows; anything else here is a broken agent.
  if (ranAhead && (pre.blocked || rewritten || pre.approval))
    throw new SystemError(
      'sandbox_protocol_violation',
      'the sandbox agent ran the code of a call its pre hook did not plainly allow',
      { retryable: false, details: { operation: 'run_hook', field: 'then' } },
    );
  if (pre.approval) outcome.approval = pre.approval;
  if (pre.additionalContext.length > 0) outcome.additional_context = pre.additionalContext;
  if (rewritten) {
    // A dialect hook's updatedInput: the call runs rewritten, and the record keeps the original.
    outcome.original_args ??= call.args;
    call = pre.call;
    outcome.tool_call = call;
  }
  if (pre.blocked)
    return site.finish(budget, { ...outcome, blocked: true, reason: pre.reason, is_error: true });
  const { tool, args } = pre.resolved;
  const final = rewritten ? toolRequestOf(site.settings, tool, args, callId, options) : request;
  const result = await runTool(site.sandbox, final, context, ranAhead);
  outcome.result = result;
  const error = tool.errorOf(result);
  if (error !== undefined) outcome.error = error;
  const postRun = { result, ...(error === undefined ? {} : { error }) };
  const post = await runPostHooks(gates, site.handlers, call, postRun, context, record);
  outcome.hooks.push(...post.records);
  if (post.additionalContext.length > 0)
    outcome.additional_context = [...(outcome.additional_context ?? []), ...post.additionalContext];

  outcome.is_error = failed(result);
  outcome.presented = result;
  if (site.controllerHooks && scope)
    await rewriteResult(
      site.controllerHooks,
      scope,
      { call, tool, result, error },
      outcome,
      record,
    );
  return site.finish(budget, outcome);
}

/** The longest code sent with its pre hook (docs/gates.md, "One request per gated call"). */
export const RUN_AHEAD_MAX_CODE_BYTES = 1024 * 1024;

/**
 * Sends a code call with its pre hook when that takes nothing from the hooks' reading: one handler
 * matches, a native `command` one, and the code streams no live output. The agent then runs the
 * code in the hook's own request if, and only if, the hook plainly allows (docs/gates.md, "One
 * request per gated call"); any other answer leaves the call to the usual way.
 */
function runAheadWhereSafe(
  context: CallContext,
  gates: HooksConfig,
  call: ToolCall,
  request: ToolRequest,
): void {
  if (request.op !== 'run_code' || request.live) return;
  const body = request.body;
  // The code travels twice (in the hook's payload and to run): large code keeps two requests, so
  // no request grows past what one of them alone would be.
  if (Buffer.byteLength(body.code) > RUN_AHEAD_MAX_CODE_BYTES) return;
  const handlers = matchingHandlers(gates, 'pre_tool_execution', call);
  const only = handlers.length === 1 ? handlers[0] : undefined;
  if (only?.handler.type !== 'command' || only.group.dialect !== 'gemini') return;
  context.runAhead = { handler: only.handler, body, answerTimeoutMs: request.answerTimeoutMs };
}
