export { ContextStore } from './context-store.js';
export type {
  EnvironmentScope,
  InteractionScope,
  ToolCallHookContext,
  ToolCallScope,
} from './hook-context.js';
export {
  type BeforeToolCallResult,
  type Hook,
  type HookEventName,
  type InteractionStartResult,
} from './hook.js';
export { hooksFromModule, loadHookModule } from './hook-module.js';
export { PolicyEnforcer } from './policy-enforcer.js';
export { loadPolicyFile, parsePolicyFile, safeParsePolicyFile } from './policy-file.js';
export { allowAll, confirmCodeExecution, denyAll } from './policy-presets.js';
export { allow, askUser, deny, type PolicyRule } from './policy-rule.js';
export { HookRunner } from './runner.js';
export { workspaceOnly } from './workspace-only.js';
