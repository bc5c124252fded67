import { createHash } from 'node:crypto';
import type { ApprovalRequest, ApprovalState, Approver } from '../hooks/approvals.js';
import { askReasons } from '../hooks/approvals.js';
import { UserError } from '../errors/index.js';
import type { AskRequest } from '../hooks/hook-engine.js';
import type { ToolCall } from '../tools/types.js';
import type { ToolCallReport } from './driver.js';
import type { ApprovalStore, PendingApproval } from './approval-store.js';
import type { Interaction } from './schema.js';

/**
 * `ask` over HTTP (docs/contract.md §11; docs/dialects.md, "ask"). A call whose pre hooks ask ends the
 * interaction with status `requires_action` and a pending approval; the client continues with
 * `previous_interaction_id` and `{"type": "approval", "call_id", "approve"}`; the call then runs
 * (approve) or is blocked (deny). Approvals are kept in an {@link ApprovalStore} (the state file
 * with `hookbox serve --state-file`), so they survive a restart; unanswered, they expire as denied.
 */

/** @default 3600000 (one hour) */
export const DEFAULT_APPROVAL_TTL_MS = 60 * 60 * 1000;

/** `HOOKBOX_APPROVAL_TTL_MS`: how long a pending approval waits before it counts as denied. */
export function approvalTtlFromEnv(env: Record<string, string | undefined> = process.env): number {
  const text = env.HOOKBOX_APPROVAL_TTL_MS;
  if (text === undefined || text === '') return DEFAULT_APPROVAL_TTL_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UserError(
      'invalid_argument',
      `HOOKBOX_APPROVAL_TTL_MS: must be a positive whole number of milliseconds (got ${JSON.stringify(text)})`,
      { details: { field: 'HOOKBOX_APPROVAL_TTL_MS' } },
    );
  return value;
}

/** Thrown by the interaction's `callTool` to end the driver's run: a call waits for approval. */
export class ApprovalPause extends Error {
  constructor(readonly approval: PendingApproval) {
    super(`call ${approval.call_id} waits for approval`);
  }
}

/** What one approval covers: this hook's ask, for this exact call, in this environment. */
function grantKey(ask: AskRequest, call: ToolCall): string {
  return createHash('sha256')
    .update(JSON.stringify([ask.group, ask.handler, call.name, call.args]))
    .digest('hex');
}

/** The pending approval as it is now: past its time, a pending one is expired. */
export function current(approval: PendingApproval, now = Date.now()): PendingApproval {
  return approval.status === 'pending' && Date.parse(approval.expires_at) <= now
    ? { ...approval, status: 'expired' }
    : approval;
}

/** An interaction's pending approvals as they are now (`GET` shows expiry without a sweep). */
export function withCurrentApprovals(interaction: Interaction, now = Date.now()): Interaction {
  if (!interaction.pending_approvals) return interaction;
  return {
    ...interaction,
    pending_approvals: interaction.pending_approvals.map((approval) =>
      approval.status === 'pending' && Date.parse(approval.expires_at) <= now
        ? { ...approval, status: 'expired' as const }
        : approval,
    ),
  };
}

/**
 * The approver of one interaction run. A call re-run after its approval is let through once
 * (`force_ask` included); an approved `ask` is remembered for the same hook and call in the
 * environment, so asking again is satisfied — a `force_ask` never is.
 */
export class InteractionApprover implements Approver {
  private readonly approvedOnce = new Set<string>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly ttlMs: number,
  ) {}

  /** The approver said yes to this pending call: its re-run goes through. */
  approveOnce(callId: string): void {
    this.approvedOnce.add(callId);
  }

  async decide(request: ApprovalRequest): Promise<ApprovalState> {
    const reason = askReasons(request.asks);
    if (this.approvedOnce.delete(request.callId)) {
      for (const ask of request.asks)
        if (!ask.force)
          await this.store.addGrant(request.environmentId, grantKey(ask, request.call));
      return { status: 'approved', reason };
    }
    let cached = true;
    for (const ask of request.asks)
      if (
        ask.force ||
        !(await this.store.hasGrant(request.environmentId, grantKey(ask, request.call)))
      )
        cached = false;
    if (cached) return { status: 'approved', reason: `approved before: ${reason}` };
    if (request.interactionId === null) return { status: 'required', reason };
    const now = Date.now();
    const approval: PendingApproval = {
      call_id: request.callId,
      interaction_id: request.interactionId,
      environment_id: request.environmentId,
      tool_call: request.call,
      hooks: request.asks.map((ask) => ({ ...ask })),
      reason,
      status: 'pending',
      created: new Date(now).toISOString(),
      expires_at: new Date(now + this.ttlMs).toISOString(),
    };
    await this.store.put(approval);
    return { status: 'pending', reason, expires_at: approval.expires_at };
  }
}

/** The `approval` items of a request's input, with their index. */
export function approvalItemsOf(
  input: unknown,
): { index: number; call_id: string; approve: boolean; reason?: string }[] {
  if (!Array.isArray(input)) return [];
  return input.flatMap((item: Record<string, unknown>, index) =>
    item.type === 'approval'
      ? [
          {
            index,
            call_id: String(item.call_id),
            approve: item.approve === true,
            ...(typeof item.reason === 'string' ? { reason: item.reason } : {}),
          },
        ]
      : [],
  );
}

/**
 * Checks a continuation's approval items before anything runs: each names a call waiting in the
 * interaction it continues, once. Returns the approvals they answer.
 */
export async function checkApprovalItems(
  input: unknown,
  previous: Interaction | undefined,
  store: ApprovalStore,
): Promise<PendingApproval[]> {
  const items = approvalItemsOf(input);
  const out: PendingApproval[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const field = `input[${item.index}].call_id`;
    const fail = (rule: string) =>
      new UserError('invalid_argument', `${field}: ${rule}`, { details: { field } });
    if (!previous)
      throw new UserError(
        'invalid_argument',
        `input[${item.index}]: an approval answers a call of an earlier interaction: give previous_interaction_id`,
        { details: { field: 'previous_interaction_id' } },
      );
    if (seen.has(item.call_id)) throw fail(`${JSON.stringify(item.call_id)} is answered twice`);
    seen.add(item.call_id);
    const approval = await store.get(item.call_id);
    if (!approval || approval.interaction_id !== previous.id)
      throw fail(
        `no call ${JSON.stringify(item.call_id)} waits for approval in interaction ${previous.id}`,
      );
    if (approval.status === 'approved' || approval.status === 'denied')
      throw fail(`call ${JSON.stringify(item.call_id)} was already ${approval.status}`);
    out.push(approval);
  }
  return out;
}

/** The report of a call that waited and was not approved: blocked, the tool did not run. */
export function unapprovedReport(approval: PendingApproval, reason: string): ToolCallReport {
  return {
    call_id: approval.call_id,
    tool_call: approval.tool_call,
    blocked: true,
    reason,
    result: null,
    is_error: true,
    text_for_model: reason,
    hooks: [],
  };
}

/**
 * Settles the approvals a continuation answers, before its driver runs: an approved call runs
 * again (keeping its call id) and goes through; a denied or expired one is blocked.
 */
export async function settleApprovals(options: {
  answered: readonly PendingApproval[];
  input: unknown;
  store: ApprovalStore;
  approver: InteractionApprover;
  runCall(call: ToolCall, callId: string): Promise<unknown>;
  addBlocked(report: ToolCallReport): void;
  /** The answer, for the environment's audit log. */
  record(approval: PendingApproval, reason: string | null): void;
}): Promise<void> {
  const items = approvalItemsOf(options.input);
  for (const approval of options.answered) {
    const item = items.find((candidate) => candidate.call_id === approval.call_id)!;
    const now = current(approval);
    if (now.status === 'expired') {
      await options.store.put(now);
      options.record(now, null);
      options.addBlocked(
        unapprovedReport(approval, `approval expired, so denied: ${approval.reason}`),
      );
    } else if (!item.approve) {
      await options.store.put({ ...approval, status: 'denied' });
      options.record({ ...approval, status: 'denied' }, item.reason ?? null);
      const why = item.reason ? ` (${item.reason})` : '';
      options.addBlocked(unapprovedReport(approval, `approval denied${why}: ${approval.reason}`));
    } else {
      await options.store.put({ ...approval, status: 'approved' });
      options.record({ ...approval, status: 'approved' }, item.reason ?? null);
      options.approver.approveOnce(approval.call_id);
      await options.runCall(approval.tool_call, approval.call_id);
    }
  }
}

/** The earlier interaction once its approvals are answered: they show their answers. */
export async function answeredInteraction(
  previous: Interaction,
  store: ApprovalStore,
): Promise<Interaction | undefined> {
  if (!previous.pending_approvals) return undefined;
  const approvals = await Promise.all(
    previous.pending_approvals.map(async (shown) => {
      const stored = await store.get(shown.call_id);
      return stored ? { ...shown, status: current(stored).status } : shown;
    }),
  );
  const waiting = approvals.some((approval) => approval.status === 'pending');
  return {
    ...previous,
    pending_approvals: approvals,
    status: waiting ? 'requires_action' : 'completed',
    updated: new Date().toISOString(),
  };
}

/** A pending approval as the Interaction shows it. */
export function shownApproval(approval: PendingApproval) {
  return {
    call_id: approval.call_id,
    tool_call: approval.tool_call,
    hooks: approval.hooks,
    reason: approval.reason,
    status: approval.status,
    expires_at: approval.expires_at,
  };
}
