// What the hook runner is given (its options) and what each of its dispatches answers.
import type { HookRecord } from '../../record/types.js';
import type { PresentedResult } from '../../tools/types.js';
import type { LifecycleHookRecord } from '../../record/types.js';
import type { ToolArguments } from './hook.js';

export interface HookRunnerOptions {
  /**
   * Recorded as the `group` of every record, to tell controller hooks apart from hooks.json groups.
   * @default 'controller'
   */
  group?: string;
  /**
   * How long one hook invocation may take unless the hook sets its own `timeoutMs`. A decision that
   * does not come in time fails closed, like a hook that throws.
   * @default 30_000
   */
  hookTimeoutMs?: number;
}

/** The answer to `HookRunner.onEnvironmentStart`, `onEnvironmentEnd` and `onInteractionEnd`. */
export interface ObserverOutcome {
  records: LifecycleHookRecord[];
}

export interface InteractionStartOutcome {
  /** Whether the turn must not run. */
  refused: boolean;
  /** Why it was refused, for the caller to show; `null` when it was not. */
  reason: string | null;
  records: LifecycleHookRecord[];
}

export interface BeforeToolCallOutcome {
  /** Whether the call must not reach the sandbox (its gates included). */
  blocked: boolean;
  /** The text the model is shown for a blocked call; `null` when it was not blocked. */
  reason: string | null;
  /**
   * The arguments the call goes on with, after every rewrite: pass these to the sandbox gates and the
   * tool, after validating them against the tool's schema again (a hook may write anything).
   * The same object as `originalArgs` when no hook rewrote them.
   */
  args: ToolArguments;
  /** The arguments as the caller sent them, for the record; never modified. */
  originalArgs: ToolArguments;
  /** The hooks that rewrote the arguments, in order. */
  rewrittenBy: string[];
  records: HookRecord[];
}

export interface AfterToolCallOutcome {
  /** What the model is shown: the raw result, a hook's rewrite of it, or an error when it is withheld. */
  presented: PresentedResult;
  /** The result as the tool gave it, for the record; the same object the caller passed, never modified. */
  raw: PresentedResult;
  /** True when a hook failed and the model is shown an error instead of the result: mark the step as an error. */
  withheld: boolean;
  records: HookRecord[];
}

export interface ToolErrorOutcome {
  /** The error text the model is shown. The call stays failed whatever this says. */
  message: string;
  /** The error text as the caller passed it, for the record. */
  originalMessage: string;
  records: HookRecord[];
}
