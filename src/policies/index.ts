export { ContextStore, type ContextLevel, type ContextStoreOptions } from './context-store.js';
export type { LifecycleEventName, LifecycleHookRecord } from '../record/types.js';
export type {
  EnvironmentHookContext,
  EnvironmentScope,
  HookContext,
  InteractionHookContext,
  InteractionScope,
  ToolCallHookContext,
  ToolCallScope,
} from './hook-context.js';
export {
  HOOK_EVENT_NAMES,
  HOOK_METHOD_OF_EVENT,
  type AfterToolCallResult,
  type AllowDecision,
  type BeforeToolCallResult,
  type DenyDecision,
  type Hook,
  type HookEventName,
  type InteractionStartResult,
  type ToolArguments,
  type ToolErrorResult,
} from './hook.js';
export { hooksFromModule, loadHookModule } from './hook-module.js';
export { validateHooks } from './hook-validation.js';
export { compileCondition, type PolicyCondition, type ScalarValue } from './policy-condition.js';
export {
  PolicyEnforcer,
  type PolicyDecision,
  type PolicyEnforcerOptions,
} from './policy-enforcer.js';
export {
  loadPolicyFile,
  parsePolicyFile,
  safeParsePolicyFile,
  type PolicyFileOptions,
  type SafeParsePolicyFileResult,
} from './policy-file.js';
export { allowAll, confirmCodeExecution, denyAll } from './policy-presets.js';
export {
  allow,
  askUser,
  deny,
  describeRule,
  type AskUserHandler,
  type PolicyEffect,
  type PolicyRule,
  type PolicyRuleOptions,
  type ToolCallPredicate,
} from './policy-rule.js';
export {
  HookRunner,
  type AfterToolCallOutcome,
  type BeforeToolCallOutcome,
  type HookRunnerOptions,
  type InteractionStartOutcome,
  type ObserverOutcome,
  type ToolErrorOutcome,
} from './runner.js';
export { parseToolPattern, type ToolPattern } from './tool-pattern.js';
export { FILE_TOOL_PATH_ARGUMENTS, workspaceOnly } from './workspace-only.js';
