import { LIFECYCLE_EVENT_NAMES } from '../../record/types.js';
import type { ToolCall, PresentedResult } from '../../tools/types.js';
import type {
  EnvironmentHookContext,
  InteractionHookContext,
  ToolCallHookContext,
} from './hook-context.js';

/** The events a controller hook can handle, each served by the {@link Hook} method of the same meaning. */
export const HOOK_EVENT_NAMES = [
  ...LIFECYCLE_EVENT_NAMES,
  'before_tool_call',
  'after_tool_call',
  'tool_error',
] as const;

export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

/** The {@link Hook} method that serves each event. */
export const HOOK_METHOD_OF_EVENT = {
  environment_start: 'onEnvironmentStart',
  environment_end: 'onEnvironmentEnd',
  interaction_start: 'onInteractionStart',
  interaction_end: 'onInteractionEnd',
  before_tool_call: 'beforeToolCall',
  after_tool_call: 'afterToolCall',
  tool_error: 'onToolError',
} as const satisfies Record<HookEventName, keyof Hook>;

export type ToolArguments = ToolCall['args'];

type Awaitable<T> = T | Promise<T>;

/** Lets the call or the turn go ahead and ends the dispatch: the hooks after this one are skipped. */
export interface AllowDecision {
  readonly decision: 'allow';
  /** Kept in the record only. */
  readonly reason?: string;
}

/** Refuses the call or the turn and ends the dispatch. */
export interface DenyDecision {
  readonly decision: 'deny';
  /** What the model is shown, and what the record keeps. */
  readonly reason: string;
}

/** What {@link Hook.onInteractionStart} may return; nothing means no opinion. */
export type InteractionStartResult = void | AllowDecision | DenyDecision;

/**
 * What {@link Hook.beforeToolCall} may return:
 * - nothing: no opinion, the next hook decides;
 * - `{args}`: no opinion, but the call goes on with these arguments (the next hook sees them);
 * - `{decision: 'allow'}`, optionally with `args`: the call goes on (with these arguments), the hooks
 *   after this one are skipped;
 * - `{decision: 'deny', reason}`: the call is blocked with this reason; a refusal cannot rewrite.
 *
 * An allow ends only the controller's dispatch: the sandbox gates of hooks.json still run after it.
 */
export type BeforeToolCallResult =
  | void
  | { readonly decision?: undefined; readonly args: ToolArguments }
  | (AllowDecision & { readonly args?: ToolArguments })
  | (DenyDecision & { readonly args?: never });

/** What {@link Hook.afterToolCall} may return: nothing keeps the result shown so far, `{result}` replaces it. */
export type AfterToolCallResult = void | { readonly result: PresentedResult };

/**
 * What {@link Hook.onToolError} may return: nothing keeps the error text, `{message}` rewords it.
 * There is deliberately no way to return a result: a failed call stays failed.
 */
export type ToolErrorResult = void | { readonly message: string };

/**
 * A controller-side hook: operator code that runs in the hookbox process, outside the sandbox and
 * before its gates, so nothing inside the sandbox can change or skip it. Every method is optional;
 * the arguments a hook receives are frozen copies, so a hook changes what happens only through what
 * it returns. See docs/policies.md for the dispatch rules.
 */
export interface Hook {
  /** Names the hook in records and in refusal reasons; unique within one runner. */
  readonly name: string;
  /**
   * The events this hook handles. Each listed event needs its method.
   * @default every event whose method the hook has
   */
  readonly events?: readonly HookEventName[];
  /**
   * Recorded as the record's `type`.
   * @default 'hook'
   */
  readonly kind?: 'hook' | 'policy';
  /**
   * How long one invocation may take before it counts as failed (and a pending decision fails closed).
   * @default the runner's `hookTimeoutMs`
   */
  readonly timeoutMs?: number;

  /** An environment was created. Observes only. */
  onEnvironmentStart?(context: EnvironmentHookContext): Awaitable<void>;
  /** An environment is about to be removed. Observes only. */
  onEnvironmentEnd?(context: EnvironmentHookContext): Awaitable<void>;
  /** A turn is about to start; a deny refuses the whole turn before any model or tool work. */
  onInteractionStart?(context: InteractionHookContext): Awaitable<InteractionStartResult>;
  /** A turn ended, whatever its outcome. Observes only. */
  onInteractionEnd?(context: InteractionHookContext): Awaitable<void>;
  /** A tool call is about to reach the sandbox gates; see {@link BeforeToolCallResult}. */
  beforeToolCall?(context: ToolCallHookContext, call: ToolCall): Awaitable<BeforeToolCallResult>;
  /**
   * A tool call succeeded. `call` carries the arguments that ran; `result` is what the model would be
   * shown so far (the raw result, or an earlier hook's rewrite of it).
   */
  afterToolCall?(
    context: ToolCallHookContext,
    call: ToolCall,
    result: PresentedResult,
  ): Awaitable<AfterToolCallResult>;
  /** A tool call failed; `errorText` is what the model would be shown so far. */
  onToolError?(
    context: ToolCallHookContext,
    call: ToolCall,
    errorText: string,
  ): Awaitable<ToolErrorResult>;
}
