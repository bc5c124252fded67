/**
 * `ask` over MCP for a client without elicitation (docs/mcp.md, "ask"): the call waits, its MCP
 * request held open, for a decision made through the approvals API or the console.
 */
import {
  askReasons,
  type ApprovalRequest,
  type ApprovalState,
  type Approver,
} from '../hooks/approvals.js';
import type { ApprovalAnswer } from './elicitation-approver.js';
import type { WaitingApproval, WaitingApprovals } from './waiting-approvals.js';

/** While a call waits, the client hears again this often (clients reset their timeouts on it). */
export const WAITING_NOTE_INTERVAL_MS = 15_000;

/** Where a waiting call is answered, as the notes and docs/mcp.md tell it. */
export function approvalPathOf(approval: Pick<WaitingApproval, 'environment_id' | 'call_id'>) {
  return `/v1beta/environments/${approval.environment_id}/approvals/${approval.call_id}`;
}

function waitingNote(approval: WaitingApproval): string {
  return (
    `waiting for approval: ${approval.reason}. Call ${approval.call_id} (${approval.tool_call.name}) ` +
    `runs once approved: POST ${approvalPathOf(approval)} {"approve": true} (or false, with a ` +
    `"reason"), or in the console at /console#/environments/${approval.environment_id}. ` +
    `Unanswered by ${approval.expires_at}, it is denied.`
  );
}

export class ApiApprover implements Approver {
  constructor(
    private readonly waiting: WaitingApprovals,
    private readonly options: {
      /** HOOKBOX_APPROVAL_TTL_MS of the server. */
      ttlMs: number;
      /** The MCP client's name, shown beside the waiting call. */
      mcpClient: string;
      /** The MCP request's cancellation: it withdraws the waiting approval. */
      signal?: AbortSignal;
      /** Tells the MCP client (a progress notification, when it asked for progress). */
      note(message: string): void;
      /** The answer, for the environment's audit log. */
      record(
        answer: Omit<ApprovalAnswer, 'status'> & { status: ApprovalAnswer['status'] | 'expired' },
      ): void;
    },
  ) {}

  async decide(request: ApprovalRequest): Promise<ApprovalState> {
    const why = askReasons(request.asks);
    let reminder: NodeJS.Timeout | undefined;
    const end = await this.waiting
      .wait(
        request,
        {
          ttlMs: this.options.ttlMs,
          mcpClient: this.options.mcpClient,
          ...(this.options.signal ? { signal: this.options.signal } : {}),
        },
        (approval) => {
          const note = waitingNote(approval);
          this.options.note(note);
          reminder = setInterval(() => this.options.note(note), WAITING_NOTE_INTERVAL_MS);
        },
      )
      .finally(() => clearInterval(reminder));
    if (end.status === 'approved' || end.status === 'denied') {
      this.options.record({
        call_id: request.callId,
        status: end.status,
        reason: end.reason,
        decided_by: end.decided_by,
      });
      return { status: end.status, reason: end.reason };
    }
    if (end.status === 'expired') {
      this.options.record({
        call_id: request.callId,
        status: 'expired',
        reason: `unanswered by its expiry, so denied: ${why}`,
        decided_by: 'nobody (expired)',
      });
      return { status: 'expired', reason: why };
    }
    // Withdrawn: the client cancelled its request, so no one is left to run the call for.
    this.options.record({
      call_id: request.callId,
      status: 'denied',
      reason: 'withdrawn: the MCP request was cancelled while it waited',
      decided_by: `the MCP client ${this.options.mcpClient}`,
    });
    return { status: 'denied', reason: 'withdrawn: the MCP request was cancelled' };
  }
}
