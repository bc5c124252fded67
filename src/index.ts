/**
 * hookbox's public library API. Everything a user imports comes from here.
 *
 * ```ts
 * import { Controller } from 'hookbox';
 * const controller = await Controller.start();
 * const environment = await controller.createEnvironment({ sources: [
 *   { type: 'inline', target: '.agents/hooks.json', content: hooksJson },
 *   { type: 'inline', target: '.agents/hooks-scripts/gate.py', content: gateScript },
 * ] });
 * const outcome = await environment.call({ name: 'code_execution', args: { code: 'rm -rf /tmp/forbidden' } });
 * outcome.blocked; // true: the gate said deny
 * environment.records(); // the audit log: every hook run and call
 * await environment.delete();
 * ```
 */
export { Controller, type ControllerOptions } from './controller/controller.js';
export type { SnapshotOptions } from './snapshots/snapshot-options.js';
export type { SnapshotRow } from './snapshots/snapshot-rows.js';
export type { SnapshotInfo } from './snapshots/snapshot-schema.js';
export { Environment, type CallOutcome } from './controller/environment.js';
export { ENVIRONMENT_DEFAULTS, type EnvironmentOptions } from './controller/environment-options.js';
export { SANDBOX_DEFAULTS, type SandboxOptions } from './sandbox/sandbox-options.js';
export {
  Allowlist,
  ALLOWLIST_LIMITS,
  parseNetworkOptions,
  type AllowlistEntry,
  type NetworkOptions,
} from './network/allowlist.js';
export type { EgressRecord } from './record/egress-record.js';
export {
  Credentials,
  CREDENTIAL_LIMITS,
  type Credential,
  type CredentialInput,
} from './credentials/credentials.js';
export { SECRET_KEY_VARIABLE, secretKeyOf } from './credentials/secret-key.js';
export type { ToolEnvValue } from './tools/tool-env.js';
export type { EgressTesting } from './network/egress-proxy.js';
export type { EgressSettings } from './network/environment-egress.js';
export { placeSources, type InlineSource, type PlacedSource } from './config/sources.js';
export { SOURCE_LIMITS } from './config/limits.js';
export {
  parseHooksConfig,
  safeParseHooksConfig,
  type HooksConfig,
  type HookGroup,
  type HookRule,
  type HookHandler,
  type CommandHandler,
  type HttpHandler,
} from './config/hooks-config.js';
export { compileMatcher, type ToolMatcher } from './config/matcher.js';
export { decidePre, decidePost, type HandlerRun, type PreDecision } from './hooks/decision.js';
// Hook dialects and `ask` (docs/dialects.md).
export type { HookDialect } from './config/hooks-config.js';
export type { Approver, ApprovalRequest, ApprovalState } from './hooks/approvals.js';
export { importHooks, type ImportReport } from './hooks/import/import-hooks.js';
export type { ApprovalStore, PendingApproval } from './state/approvals.js';
export { readAuditLog, auditLogPath, type AuditEntry } from './record/audit-log.js';
export type { HookRecord, HookOutcome, HookEvent, HookSource } from './record/types.js';
export type {
  BuiltinToolResult,
  ExecResult,
  File202609ToolResult,
  FileToolResult,
  JsonObject,
  PresentedResult,
  ToolCall,
  ToolResult,
  ToolResultByName,
} from './tools/types.js';
export { execResultOf, isExecResult, resultOf, toolErrorOf } from './tools/results.js';
export {
  DEFAULT_VOCABULARY,
  VOCABULARIES,
  resolveToolCall,
  type VocabularyId,
} from './tools/registry.js';
export { backendOf, type Backend, type ContainerClient } from './sandbox/backend.js';
export type { ContainerRuntime } from './sandbox/container-runtime.js';
export type { ImageStore } from './sandbox/image-store.js';
export type { NetworkStore } from './sandbox/network-store.js';
export { DockerBackend } from './backends/docker/docker-backend.js';
export { ensureImage, imageTags } from './sandbox/image.js';
export {
  HookboxError,
  UserError,
  SystemError,
  httpStatusOf,
  exitCodeOf,
  type UserErrorCode,
  type SystemErrorCode,
} from './errors/index.js';
export { Hookbox, HookboxApiError, type HookboxOptions } from './client/index.js';
export {
  interactionRequestSchema,
  interactionSchema,
  interactionEventSchema,
  type InteractionRequest,
  type Interaction,
  type InteractionEvent,
  type Step,
  type EnvironmentInfo,
  type HookOutcomeRecord,
} from './interactions/schema.js';
export {
  InteractionService,
  type InteractionServiceOptions,
  type PreparedInteraction,
  type RunEvent,
} from './interactions/service.js';
export { MemoryInteractionStore, type InteractionStore } from './interactions/store.js';
export {
  DriverRegistry,
  BUILT_IN_DRIVERS,
  DEFAULT_AGENT_ROUTES,
  type AgentRoute,
  type DriverLoader,
} from './interactions/drivers/index.js';
export {
  GeminiDriver,
  createGeminiDriver,
  type GeminiDriverOptions,
} from './interactions/drivers/gemini.js';
export {
  OpenAIDriver,
  createOpenAIDriver,
  type OpenAIDriverOptions,
} from './interactions/drivers/openai.js';
export {
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RetryOptions,
} from './interactions/drivers/retry.js';
export type {
  ModelDriver,
  DriverContext,
  ModelTool,
  ToolCallReport,
  ConversationTurn,
} from './interactions/driver.js';
export { startServer, type StartServerOptions, type RunningServer } from './server/index.js';
export { vocabularyForAgent } from './tools/vocabulary-for-agent.js';
export {
  toolDeclarations,
  toolJsonSchema,
  type ToolDeclaration,
} from './tools/model-declarations.js';
export { VOCABULARY_IDS, isVocabularyId } from './tools/registry.js';
export {
  HookRunner,
  ContextStore,
  PolicyEnforcer,
  allow,
  deny,
  askUser,
  workspaceOnly,
  confirmCodeExecution,
  denyAll,
  allowAll,
  parsePolicyFile,
  safeParsePolicyFile,
  loadPolicyFile,
  loadHookModule,
  type Hook,
  type HookEventName,
  type PolicyRule,
} from './hooks/controller-hooks/index.js';
export { WarmPool, type WarmPoolOptions } from './controller/warm-pool.js';
export { reapOrphans, type ReapResult } from './controller/reaper.js';
export { SqlStateStore } from './state/sql-state-store.js';
export { StateInteractionStore } from './interactions/state-interaction-store.js';
export { fixtureSchema, fixtureJsonSchema, type Fixture } from './testing/fixture-schema.js';
export { loadFixtures, parseFixture } from './testing/load-fixtures.js';
export { runFixtures, type CaseResult, type RunOptions } from './testing/run-fixtures.js';
export { junitXml } from './testing/junit.js';
