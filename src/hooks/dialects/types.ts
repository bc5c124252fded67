import type { HandlerRun, PostDecision, PreDecision } from '../decision.js';
import type { HookDialect, OnError } from '../../config/hooks-config.js';
import type { ToolCall, JsonObject } from '../../tools/types.js';

/** The call a dialect's hooks are told about, with what hookbox knows of it. */
export interface DialectCallContext {
  environmentId: string;
  callId: string;
  /** The call in the environment's vocabulary, with the arguments as they now stand. */
  call: ToolCall;
}

/** A call as another system would have made it: its tool name and input (docs/dialects.md). */
export interface ForeignCall {
  name: string;
  input: Record<string, unknown>;
}

/** After the tool ran: its result and the post payload's `error`, if any. */
export interface DialectResult {
  result: JsonObject;
  error?: string;
}

/** What a handler needs of its definition to read an answer. */
export interface HandlerTerms {
  onError: OnError;
  timeoutSeconds: number;
}

/**
 * One hook format: how the call is named and shown to a group's hooks, and how their answers are
 * read. `gemini` is docs/contract.md §4/§6; the others follow their systems' documentation (docs/dialects.md).
 */
export interface Dialect {
  readonly id: HookDialect;
  /** The tool name a group's matchers are matched against. */
  toolName(call: ToolCall): string;
  /** Other names the agent's matchers also select the call by (Codex's `Write`/`Edit`). */
  aliases?(call: ToolCall): string[];
  /** Whether the event fires for the call at all (Cursor's `beforeShellExecution`, …). */
  fires?(call: ToolCall): boolean;
  /** The pre hook's stdin. */
  prePayload(context: DialectCallContext): unknown;
  /** The post hook's stdin. */
  postPayload(context: DialectCallContext, outcome: DialectResult): unknown;
  /** Variables the system sets for its hooks (on top of hookbox's own). */
  env(): Record<string, string>;
  decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision;
  decidePost(run: HandlerRun, handler: HandlerTerms): PostDecision;
  /**
   * A rewrite (`updatedInput`) turned back into the environment's arguments for `call`, or why it
   * cannot be. The caller validates the result against the tool's schema.
   */
  mapBack?(updated: Record<string, unknown>, call: ToolCall): ToolCall | { error: string };
}
