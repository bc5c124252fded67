/**
 * MCP calls waiting for an approval through the API and the console (docs/mcp.md, "ask"): the
 * fallback when the client cannot show a question. The call holds its MCP request open while an
 * API request decides it; unanswered it expires as denied; a cancelled request withdraws it.
 */
import type { ApprovalRequest } from '../hooks/approvals.js';
import { UserError } from '../errors/index.js';
import type { ToolCall } from '../tools/types.js';

/** A waiting MCP call, as `GET /v1beta/environments/{id}/approvals` shows it. */
export interface WaitingApproval {
  call_id: string;
  environment_id: string;
  /** Always null: the call came over MCP, not from an interaction. */
  interaction_id: null;
  /** Where the call came from: `mcp`, the MCP client's name beside it. */
  via: 'mcp';
  mcp_client: string;
  tool_call: ToolCall;
  hooks: { group: string; handler: string; reason: string | null; force: boolean }[];
  /** The gates' reasons. */
  reason: string;
  status: 'pending';
  created: string;
  /** Unanswered by then, the call is denied (HOOKBOX_APPROVAL_TTL_MS). */
  expires_at: string;
}

/** How a wait ended. */
export type WaitEnd =
  | { status: 'approved' | 'denied'; reason: string | null; decided_by: string }
  | { status: 'expired'; reason: null; decided_by: null }
  | { status: 'withdrawn'; reason: null; decided_by: null };

interface Entry {
  approval: WaitingApproval;
  settle(end: WaitEnd): void;
}

function noWaitingCall(environmentId: string, callId: string): UserError {
  return new UserError(
    'not_found',
    `call_id: no call ${JSON.stringify(callId)} waits for approval in environment ${environmentId} (answered, expired, withdrawn or never asked)`,
    { details: { field: 'call_id' } },
  );
}

/** The waiting MCP calls of one server, by call id. Held in memory: a wait lives in a request. */
export class WaitingApprovals {
  private readonly entries = new Map<string, Entry>();

  /**
   * Shows the call as waiting and resolves when an API request decides it, when it expires
   * (`ttlMs`), or when `signal` aborts (the MCP request was cancelled: the approval is withdrawn).
   */
  wait(
    request: ApprovalRequest,
    options: { ttlMs: number; mcpClient: string; signal?: AbortSignal },
    onWaiting: (approval: WaitingApproval) => void,
  ): Promise<WaitEnd> {
    const now = Date.now();
    const approval: WaitingApproval = {
      call_id: request.callId,
      environment_id: request.environmentId,
      interaction_id: null,
      via: 'mcp',
      mcp_client: options.mcpClient,
      tool_call: request.call,
      hooks: request.asks.map((ask) => ({ ...ask })),
      reason: request.asks.map((ask) => ask.reason ?? `${ask.group} asks`).join('; '),
      status: 'pending',
      created: new Date(now).toISOString(),
      expires_at: new Date(now + options.ttlMs).toISOString(),
    };
    return new Promise<WaitEnd>((resolve) => {
      const settle = (end: WaitEnd) => {
        if (this.entries.get(approval.call_id)?.approval !== approval) return;
        this.entries.delete(approval.call_id);
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', withdraw);
        resolve(end);
      };
      const withdraw = () => settle({ status: 'withdrawn', reason: null, decided_by: null });
      const timer = setTimeout(
        () => settle({ status: 'expired', reason: null, decided_by: null }),
        options.ttlMs,
      );
      this.entries.set(approval.call_id, { approval, settle });
      if (options.signal?.aborted) return withdraw();
      options.signal?.addEventListener('abort', withdraw, { once: true });
      onWaiting(approval);
    });
  }

  /** The calls waiting in one environment, oldest first. */
  list(environmentId: string): WaitingApproval[] {
    return [...this.entries.values()]
      .map((entry) => entry.approval)
      .filter((approval) => approval.environment_id === environmentId);
  }

  /** An API request's answer: the waiting call runs (approve) or is blocked with the reason. */
  decide(
    environmentId: string,
    callId: string,
    answer: { approve: boolean; reason: string | null; decidedBy: string },
  ): WaitingApproval {
    const entry = this.entries.get(callId);
    if (!entry || entry.approval.environment_id !== environmentId)
      throw noWaitingCall(environmentId, callId);
    // Past its time it is already denied, even if its timer has not fired yet.
    if (Date.parse(entry.approval.expires_at) <= Date.now()) {
      entry.settle({ status: 'expired', reason: null, decided_by: null });
      throw new UserError(
        'conflict',
        `call_id: the approval of call ${JSON.stringify(callId)} expired at ${entry.approval.expires_at}, so the call was denied`,
        { details: { field: 'call_id' } },
      );
    }
    entry.settle({
      status: answer.approve ? 'approved' : 'denied',
      reason: answer.reason,
      decided_by: answer.decidedBy,
    });
    return entry.approval;
  }
}
