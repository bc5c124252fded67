/** What one tool call came to (CallOutcome) and the options a caller gives it (CallOptions). */
import type { ContextStore } from '../hooks/controller-hooks/context-store.js';
import type { HookRecord } from '../record/types.js';
import type { BuiltinToolResult, PresentedResult, ToolCall } from '../tools/types.js';
import type { ApprovalState, Approver } from '../hooks/approvals.js';

/** What one tool call came to (the `--json` shape of docs/contract.md §10, plus the records in full). */
export interface CallOutcome {
  environment_id: string;
  call_id: string;
  /** The call that ran: as the caller sent it, or as controller hooks rewrote it (see `original_args`). */
  tool_call: ToolCall;
  /** True when a pre hook denied the call: the tool did not run. */
  blocked: boolean;
  /** The deny reason; the model sees it as the call's error result. */
  reason: string | null;
  /**
   * The tool's raw result, or null when blocked: typed from the agent protocol (src/tools/types.ts);
   * hooks never rewrite it.
   */
  result: BuiltinToolResult | null;
  /** The post payload's `error` text, when the tool wrote to stderr or failed. */
  error?: string;
  /**
   * What the model is shown: the result after controller hooks' presentation rewrites (the raw one
   * stays in `result`); for a failed call, with `error` holding the (possibly reworded) error text.
   * Null when blocked: the model is shown `reason` as an error.
   */
  presented: PresentedResult | null;
  /** True when the call was blocked or the tool failed (file error, non-zero exit, timeout). */
  is_error: boolean;
  /** The arguments as the caller sent them, when a controller hook or `updatedInput` rewrote them. */
  original_args?: Record<string, unknown>;
  /** Set when a pre hook answered `ask` (docs/contract.md §11): where its approval stands. */
  approval?: ApprovalState;
  /** What hooks added to what the model is shown (`additionalContext`, docs/dialects.md). */
  additional_context?: string[];
  /** Controller hooks first, then the sandbox's, in the order they ran. */
  hooks: HookRecord[];
  /** Who acted, when not the owner (see CallOptions.actor). */
  actor?: string;
}

/** Options of one call. */
export interface CallOptions {
  /** The interaction the call belongs to, for controller hooks' context. @default null */
  interactionId?: string | null;
  /** The interaction's context store (a child of the environment's). */
  interactionStore?: ContextStore;
  /** Settles `ask` answers; without one an `ask` blocks ("approval required: …"). */
  approver?: Approver;
  /** The call id to use (a call re-run after its approval keeps its id). @default a new one */
  callId?: string;
  /**
   * Who acts, when not the owner (an admin acting on a tenant's environment): recorded with the
   * call in the audit log. @default the owner
   */
  actor?: string;
  /**
   * Told each chunk `code_execution` writes to stdout while it runs (docs/environments.md, "Live
   * output"); the result still holds the whole (capped) output. @default none
   */
  onStdout?: (chunk: string, callId: string) => void;
  /** As `onStdout`, for stderr. @default none */
  onStderr?: (chunk: string, callId: string) => void;
  /**
   * Cancels the call once aborted: every process of the tool user is killed, and again every half
   * second until the call ends; the call ends only once those kills are answered, so none reaches
   * the next call (docs/mcp.md, "Progress and cancellation"). @default none
   */
  signal?: AbortSignal;
}
