import type { ContextStore } from './context-store.js';

/** Where an environment event happens. The caller of the runner supplies it. */
export interface EnvironmentScope {
  readonly environmentId: string;
  /** The environment's store. */
  readonly store: ContextStore;
}

/** Where an interaction (one turn) event happens. */
export interface InteractionScope {
  readonly environmentId: string;
  readonly interactionId: string;
  /** The interaction's store, a child of the environment's. */
  readonly store: ContextStore;
}

/** Where a tool-call event happens. */
export interface ToolCallScope {
  readonly environmentId: string;
  /** `null` for a call made outside any interaction, as `hookbox call` does. */
  readonly interactionId: string | null;
  readonly callId: string;
  /** The call's store, a child of the interaction's store (or of the environment's, outside an interaction). */
  readonly store: ContextStore;
}

/**
 * What a hook receives: the scope plus a signal that aborts when the hook has run out of time, so
 * that a hook waiting on the network or on a person can stop instead of working on in the background.
 */
export type HookContext<Scope> = Scope & { readonly signal: AbortSignal };

export type EnvironmentHookContext = HookContext<EnvironmentScope>;
export type InteractionHookContext = HookContext<InteractionScope>;
export type ToolCallHookContext = HookContext<ToolCallScope>;
