import {
  ContextStore,
  type EnvironmentScope,
  type InteractionScope,
  type ToolCallHookContext,
  type ToolCallScope,
} from '../../../src/hooks/controller-hooks/index.js';

/** A fresh environment → interaction → call scope, with its own stores. */
export function toolCallScope(overrides: Partial<ToolCallScope> = {}): ToolCallScope {
  const environment = new ContextStore();
  const call = environment.createChild('interaction').createChild('call');
  return {
    environmentId: 'env_test',
    interactionId: 'interaction_1',
    callId: 'call_1',
    store: call,
    ...overrides,
  };
}

export function interactionScope(): InteractionScope {
  return {
    environmentId: 'env_test',
    interactionId: 'interaction_1',
    store: new ContextStore().createChild('interaction'),
  };
}

export function environmentScope(): EnvironmentScope {
  return { environmentId: 'env_test', store: new ContextStore() };
}

/** What a hook sees when called directly rather than through a runner. */
export function toolCallContext(scope: ToolCallScope = toolCallScope()): ToolCallHookContext {
  return { ...scope, signal: new AbortController().signal };
}

export function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
