/** `ask` over MCP: the user decides in their client, through MCP elicitation (docs/mcp.md, "ask"). */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import {
  askReasons,
  type ApprovalRequest,
  type ApprovalState,
  type Approver,
} from '../hooks/approvals.js';
import { DEFAULT_APPROVAL_TTL_MS } from '../interactions/approval-flow.js';

/** An approver's answer, for the environment's audit log. */
export interface ApprovalAnswer {
  call_id: string;
  status: 'approved' | 'denied';
  reason: string | null;
  /** Who decided: the MCP client's user, named by the client and (over HTTP) the tenant. */
  decided_by: string;
}

/** The form the client shows: approve or deny, with an optional reason. Flat, as MCP requires. */
export const APPROVAL_FORM = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      title: 'Decision',
      enum: ['approve', 'deny'],
      description: 'approve: the call runs; deny: it is blocked and the model is told why',
    },
    reason: { type: 'string', title: 'Reason (optional)' },
  },
  required: ['decision'],
} as const;

/** Longest argument text shown in the question; the rest is cut (the gate saw all of it). */
const SHOWN_ARGS_CHARS = 2000;

/**
 * Asks the client's user about each call a gate asks about. `decline` and `cancel` deny: a
 * question the user would not answer is not a yes. A client that does not answer within the
 * approval time (HOOKBOX_APPROVAL_TTL_MS) is a denial too.
 */
export class ElicitationApprover implements Approver {
  constructor(
    private readonly server: Server,
    private readonly options: {
      /** Who decides, as the audit log names them. */
      decidedBy: string;
      record(answer: ApprovalAnswer): void;
      /** The tool call's request, so the question travels on its stream; and its cancellation. */
      relatedRequestId?: string | number;
      signal?: AbortSignal;
      /** @default DEFAULT_APPROVAL_TTL_MS */
      timeoutMs?: number;
    },
  ) {}

  async decide(request: ApprovalRequest): Promise<ApprovalState> {
    const why = askReasons(request.asks);
    const args = JSON.stringify(request.call.args);
    const shown = args.length > SHOWN_ARGS_CHARS ? `${args.slice(0, SHOWN_ARGS_CHARS)}…` : args;
    let answer: ElicitResult;
    try {
      answer = await this.server.elicitInput(
        {
          mode: 'form',
          message: `A hookbox gate asks before this call runs: ${why}\n\n${request.call.name} ${shown}`,
          requestedSchema: APPROVAL_FORM as never,
        },
        {
          timeout: this.options.timeoutMs ?? DEFAULT_APPROVAL_TTL_MS,
          ...(this.options.signal ? { signal: this.options.signal } : {}),
          ...(this.options.relatedRequestId === undefined
            ? {}
            : { relatedRequestId: this.options.relatedRequestId }),
        },
      );
    } catch (error) {
      return this.settle(
        request,
        'denied',
        `no answer from the client (${(error as Error).message})`,
      );
    }
    const content = answer.content ?? {};
    const given =
      typeof content.reason === 'string' && content.reason !== '' ? content.reason : null;
    if (answer.action === 'accept' && content.decision === 'approve')
      return this.settle(request, 'approved', given);
    if (answer.action === 'accept') return this.settle(request, 'denied', given);
    return this.settle(
      request,
      'denied',
      answer.action === 'decline' ? 'declined in the client' : 'dismissed in the client',
    );
  }

  private settle(
    request: ApprovalRequest,
    status: 'approved' | 'denied',
    reason: string | null,
  ): ApprovalState {
    this.options.record({
      call_id: request.callId,
      status,
      reason,
      decided_by: this.options.decidedBy,
    });
    return { status, reason };
  }
}
