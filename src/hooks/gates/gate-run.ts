import type { HooksConfig } from '../../config/hooks-config.js';
import { runPreHooks, type HandlerExecutor, type HookCallContext } from '../hook-engine.js';
import type { HookRecord } from '../../record/types.js';
import { resolveToolCall, type VocabularyId } from '../../tools/registry.js';
import type { ToolCall } from '../../tools/types.js';
import { settleAsks, unapprovedReason, type ApprovalState, type Approver } from '../approvals.js';

/** What the sandbox's pre hooks came to, asks settled. */
export interface GateOutcome {
  blocked: boolean;
  reason: string | null;
  /** The call to run: a dialect hook's `updatedInput` may have rewritten it. */
  call: ToolCall;
  resolved: ReturnType<typeof resolveToolCall>;
  records: HookRecord[];
  additionalContext: string[];
  /** Set when a hook asked (docs/contract.md §11). */
  approval?: ApprovalState;
}

/**
 * Runs the sandbox's pre hooks for a call (docs/contract.md §6), checks a rewritten call against the tool's
 * schema (docs/dialects.md, "Stdin, answers and rewrites") and settles `ask` answers with the approver, if any.
 */
export async function runGates(options: {
  gates: HooksConfig;
  executor: HandlerExecutor;
  call: ToolCall;
  resolved: ReturnType<typeof resolveToolCall>;
  vocabulary: VocabularyId;
  context: HookCallContext;
  interactionId: string | null;
  approver: Approver | undefined;
  onRecord: (record: HookRecord) => void;
}): Promise<GateOutcome> {
  const { call, context, vocabulary } = options;
  // Each rewrite is resolved once, here; the one the call runs as is taken from this map.
  const resolvedOf = new Map<ToolCall, ReturnType<typeof resolveToolCall>>();
  const validate = (candidate: ToolCall) => {
    try {
      resolvedOf.set(candidate, resolveToolCall(candidate, vocabulary));
      return candidate;
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const pre = await runPreHooks(
    options.gates,
    options.executor,
    call,
    context,
    options.onRecord,
    validate,
  );
  const outcome: GateOutcome = {
    blocked: pre.blocked,
    reason: pre.reason,
    call: pre.call,
    // A rewritten call came through `validate` (the hook engine runs no other rewrite); resolving
    // it again is only a fallback.
    resolved:
      pre.call === call
        ? options.resolved
        : (resolvedOf.get(pre.call) ?? resolveToolCall(pre.call, vocabulary)),
    records: pre.records,
    additionalContext: pre.additionalContext,
  };
  if (pre.blocked || pre.asks.length === 0) return outcome;
  const approval = await settleAsks(
    {
      environmentId: context.environmentId,
      callId: context.callId,
      interactionId: options.interactionId,
      call: pre.call,
      asks: pre.asks,
    },
    options.approver,
  );
  outcome.approval = approval;
  if (approval.status !== 'approved') {
    outcome.blocked = true;
    outcome.reason = unapprovedReason(approval, pre.asks);
  }
  return outcome;
}
