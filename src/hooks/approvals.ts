import type { AskRequest } from '../hooks/hook-engine.js';
import type { ToolCall } from '../tools/types.js';

/**
 * `ask` (docs/contract.md §11; docs/dialects.md, "ask"): a pre hook may leave the call to an approver. With
 * one, the call waits for its answer; with none (`hookbox call`, `hookbox test`) it is blocked with
 * "approval required: …".
 */

/** What an approver is asked about: one call and every hook that asked. */
export interface ApprovalRequest {
  environmentId: string;
  callId: string;
  interactionId: string | null;
  call: ToolCall;
  asks: AskRequest[];
}

/** Where an approval stands, as the call's outcome tells it. */
export interface ApprovalState {
  status: 'approved' | 'denied' | 'pending' | 'expired' | 'required';
  /** Why (the hooks' reasons, the approver's answer). */
  reason: string | null;
  /** For `pending`: when it expires as denied (ISO 8601). */
  expires_at?: string;
}

/** Decides asks: at once (a cached approval, a grant) or later (`pending`). */
export interface Approver {
  decide(request: ApprovalRequest): Promise<ApprovalState>;
}

/** The hooks' reasons, in one line. */
export function askReasons(asks: readonly AskRequest[]): string {
  const reasons = asks.map((ask) => ask.reason ?? `${ask.group} asks for an approval`);
  return [...new Set(reasons)].join('; ');
}

/** The block reason of a call whose asks were not approved. */
export function unapprovedReason(state: ApprovalState, asks: readonly AskRequest[]): string {
  const why = askReasons(asks);
  switch (state.status) {
    case 'pending':
      return `waiting for approval: ${why}`;
    case 'denied':
      return `approval denied${state.reason ? ` (${state.reason})` : ''}: ${why}`;
    case 'expired':
      return `approval expired, so denied: ${why}`;
    default:
      return `approval required: ${why}`;
  }
}

/** Settles the asks of a call: with no approver, the call is blocked. */
export async function settleAsks(
  request: ApprovalRequest,
  approver: Approver | undefined,
): Promise<ApprovalState> {
  if (!approver) return { status: 'required', reason: askReasons(request.asks) };
  return approver.decide(request);
}
