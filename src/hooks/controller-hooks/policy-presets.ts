import { allow, askUser, deny, type AskUserHandler, type PolicyRule } from './policy-rule.js';

/** Every `code_execution` call waits for `handler` to approve it. */
export function confirmCodeExecution(handler: AskUserHandler): PolicyRule[] {
  return [askUser('code_execution', handler)];
}

/** Denies every tool that no more specific rule allows: the base of an allowlist. */
export function denyAll(): PolicyRule[] {
  return [deny('*')];
}

/** Allows every tool that no more specific rule denies. */
export function allowAll(): PolicyRule[] {
  return [allow('*')];
}
