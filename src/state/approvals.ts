import type { ToolCall } from '../tools/types.js';

/**
 * A call waiting for an approver (docs/contract.md §11; docs/dialects.md, "ask"): what the interaction with
 * status `requires_action` lists, and what a continuation's `approval` item answers.
 */
export interface PendingApproval {
  call_id: string;
  interaction_id: string;
  environment_id: string;
  tool_call: ToolCall;
  /** The hooks that asked, with their reasons. */
  hooks: { group: string; handler: string; reason: string | null; force: boolean }[];
  reason: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  created: string;
  /** After this an unanswered approval counts as denied (HOOKBOX_APPROVAL_TTL_MS). */
  expires_at: string;
}

/**
 * Where pending approvals and cached approvals are kept. Behind this interface so that a store
 * with owners (tenants) or another database fits without touching the flow.
 */
export interface ApprovalStore {
  put(approval: PendingApproval): Promise<void>;
  get(callId: string): Promise<PendingApproval | undefined>;
  /** Remembers that the user approved this ask for this call in this environment. */
  addGrant(environmentId: string, key: string): Promise<void>;
  hasGrant(environmentId: string, key: string): Promise<boolean>;
}

/** Approvals in memory: gone with the process (`hookbox serve` without a state file). */
export class MemoryApprovalStore implements ApprovalStore {
  private readonly approvals = new Map<string, PendingApproval>();
  private readonly grants = new Set<string>();

  async put(approval: PendingApproval): Promise<void> {
    this.approvals.set(approval.call_id, structuredClone(approval));
  }

  async get(callId: string): Promise<PendingApproval | undefined> {
    const approval = this.approvals.get(callId);
    return approval && structuredClone(approval);
  }

  async addGrant(environmentId: string, key: string): Promise<void> {
    this.grants.add(`${environmentId}\u0000${key}`);
  }

  async hasGrant(environmentId: string, key: string): Promise<boolean> {
    return this.grants.has(`${environmentId}\u0000${key}`);
  }
}
