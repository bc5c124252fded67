/** What an Environment is made of: one options object, given whole at construction. */
import type { HooksConfig } from '../config/hooks-config.js';
import type { HookRunner } from '../hooks/controller-hooks/runner.js';
import type { AuditLog } from '../record/audit-log.js';
import type { Logger } from '../record/logger.js';
import type { Observation } from '../record/observations.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import type { HookProcessSettings } from './sandbox-handlers.js';

/** What the controller wants to hear of an environment (to keep its state file current). */
export interface EnvironmentEvents {
  /** The gates were replaced; the new hooks.json text (null: none). */
  onGatesReplaced?(hooksJson: string | null): void;
  /** A call started: the environment is in use. */
  onUsed?(): void;
  /** Hook runs, calls and egress, as they are recorded (for metrics and the console). */
  observe?(observation: Observation): void;
}

/** The parts of an environment (Controller makes them; the fast tier makes them in memory). */
export interface EnvironmentParts {
  sandbox: Sandbox;
  /** The gates in force at the start (.agents/hooks.json, parsed). */
  gates: HooksConfig;
  vocabulary: VocabularyId;
  settings: ToolRunSettings;
  audit: AuditLog;
  logger: Logger;
  /** The operator's controller-side hooks and policies; they run before the sandbox gates. @default none */
  controllerHooks?: HookRunner;
  /** @default {} */
  events?: EnvironmentEvents;
  /** The tenant that owns it (docs/tenants.md); null: none. @default null */
  tenant?: string | null;
  /** Whether it came from the warm pool. @default false */
  pooled?: boolean;
  /** How its command handlers run (docs/gates.md, "Prestart and workers"). @default { prestart: true } */
  hookProcesses?: HookProcessSettings;
  /** Whether files-API changes meet the gates (docs/environments.md, "Files and the gates"). @default true */
  filesApiGates?: boolean;
}
