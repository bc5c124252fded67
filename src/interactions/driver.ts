import type { HookRecord } from '../record/types.js';
import type { VocabularyId } from '../tools/registry.js';
import type { ToolCall, JsonObject } from '../tools/types.js';

/** A built-in tool as a model sees it: name, description, JSON Schema of its arguments. */
export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 subset accepted by Gemini and OpenAI function calling). */
  parameters: Record<string, unknown>;
}

/** What one tool call came to, as a driver feeds it back to the model. */
export interface ToolCallReport {
  call_id: string;
  tool_call: ToolCall;
  blocked: boolean;
  /** The deny reason when blocked. */
  reason: string | null;
  result: JsonObject | null;
  /** True when blocked or the tool failed; then `text_for_model` is the error text. */
  is_error: boolean;
  /** What the model is shown: the result as JSON, or for a blocked call the reason (docs/contract.md §6). */
  text_for_model: string;
  hooks: HookRecord[];
  /** What hooks added for the model (`additionalContext`); already in `text_for_model`. */
  additional_context?: string[];
}

/** One user turn as the request gave it: a string, or content items (text, or scripted calls). */
export type InteractionInput = string | Record<string, unknown>[];

/** A message of an earlier turn in the same conversation (`previous_interaction_id`), oldest first. */
export type ConversationTurn =
  | { role: 'user'; text: string }
  | { role: 'model'; text: string }
  | { role: 'tool_call'; report: ToolCallReport };

export interface DriverContext {
  /** The agent name of the request (e.g. `antigravity-preview-05-2026`, `scripted`, `openai:qwen2.5`). */
  agent: string;
  input: InteractionInput;
  /** Earlier turns of this conversation. */
  history: ConversationTurn[];
  /** The environment's tools, to declare to the model. */
  tools: ModelTool[];
  /** Optional system instruction from the request. */
  systemInstruction?: string;
  /** Runs a tool call through the gates in the interaction's environment. */
  callTool(call: ToolCall): Promise<ToolCallReport>;
  /** Adds a `model_output` step (text the model said). */
  emitModelOutput(text: string): void;
  /** A driver's loop stops after this many model turns. @default 20 */
  maxSteps: number;
  signal: AbortSignal;
  /** Adds the tokens one model request used to the interaction's `usage`. */
  addUsage(usage: { input: number; output: number; thought?: number }): void;
}

/**
 * A model driver: runs one interaction's loop — ask the model, run the tool calls it makes through
 * `callTool`, feed the results back — until the model answers with no tool call, the step limit, or
 * an error (thrown as a HookboxError).
 */
export interface ModelDriver {
  readonly name: string;
  run(context: DriverContext): Promise<void>;
  /**
   * Whether the driver runs the `code_execution_call` / `tool_call` items of `input` itself (the
   * `scripted` driver). For any other driver such items are refused with a 400.
   * @default false
   */
  readonly executesInputCalls?: boolean;
  /**
   * Checks the request's input before anything is made (no environment yet); throws a `UserError`
   * naming the field (e.g. `input[1].arguments.code`). Optional.
   */
  checkInput?(input: InteractionInput, context: InputCheckContext): void;
  /**
   * The vocabulary a new environment for this input should speak, given the one the agent name
   * implies (`…-05-2026` → `2026-05`, else the default). Optional; without it, the agent's.
   */
  vocabularyFor?(input: InteractionInput, agentVocabulary: VocabularyId): VocabularyId;
}

/** What {@link ModelDriver.checkInput} may check the input against. */
export interface InputCheckContext {
  /** The vocabulary of the environment the interaction will run in. */
  vocabulary: VocabularyId;
  /** The names of the tools enabled for this interaction (request `tools` plus the file tools). */
  enabledTools: string[];
}
