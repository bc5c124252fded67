/** The service's settings read from the environment (HOOKBOX_*) and the options it is made with. */
import { UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import type { QuotaBook } from '../tenants/quotas.js';
import type { WorkspaceDisk } from '../tenants/workspace-disk.js';
import type { ApprovalStore } from '../state/approvals.js';
import type { DriverRegistry } from './drivers/index.js';
import type { RealServiceController, ServiceController } from './service-controller.js';
import { DEFAULT_ENVIRONMENT_TTL_MS } from './leases.js';
import {
  DEFAULT_MAX_STORED_BYTES,
  DEFAULT_MAX_STORED_INTERACTIONS,
  type InteractionStore,
} from './store.js';

/** A driver's loop stops after this many model turns unless `HOOKBOX_MAX_STEPS` says otherwise. */
export const DEFAULT_MAX_STEPS = 20;

/** Settings read from the environment (documented in the README, "HTTP API"). */
export interface InteractionSettings {
  /** `HOOKBOX_ENVIRONMENT_TTL_MS`: idle environments are removed after this. @default 1800000 */
  environmentTtlMs: number;
  /** `HOOKBOX_MAX_STEPS`: model turns per interaction. @default 20 */
  maxSteps: number;
  /** `HOOKBOX_MAX_STORED_INTERACTIONS`: interactions kept in memory. @default 10000 */
  maxStoredInteractions: number;
  /** `HOOKBOX_MAX_STORED_BYTES`: about how many bytes of interactions are kept in memory. @default 256 MiB */
  maxStoredBytes: number;
}

function positiveInteger(env: Record<string, string | undefined>, name: string, fallback: number) {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new UserError(
      'invalid_argument',
      `${name}: must be a positive whole number (got ${JSON.stringify(text)})`,
      {
        details: { field: name },
      },
    );
  }
  return value;
}

export function interactionSettingsFromEnv(
  env: Record<string, string | undefined> = process.env,
): InteractionSettings {
  return {
    environmentTtlMs: positiveInteger(
      env,
      'HOOKBOX_ENVIRONMENT_TTL_MS',
      DEFAULT_ENVIRONMENT_TTL_MS,
    ),
    maxSteps: positiveInteger(env, 'HOOKBOX_MAX_STEPS', DEFAULT_MAX_STEPS),
    maxStoredInteractions: positiveInteger(
      env,
      'HOOKBOX_MAX_STORED_INTERACTIONS',
      DEFAULT_MAX_STORED_INTERACTIONS,
    ),
    maxStoredBytes: positiveInteger(env, 'HOOKBOX_MAX_STORED_BYTES', DEFAULT_MAX_STORED_BYTES),
  };
}

/** `C`: the controller, the real one unless a test gives a fake that meets ServiceController. */
export interface InteractionServiceOptions<C extends ServiceController = RealServiceController> {
  controller: C;
  logger?: Logger;
  store?: InteractionStore;
  drivers?: DriverRegistry;
  /** @default HOOKBOX_ENVIRONMENT_TTL_MS, else 30 minutes */
  environmentTtlMs?: number;
  /** How often idle environments are looked for. @default min(TTL / 4, 60 s) */
  sweepIntervalMs?: number;
  /** @default HOOKBOX_MAX_STEPS, else 20 */
  maxSteps?: number;
  /** `close()` also deletes every environment of the controller. @default true */
  closeController?: boolean;
  /**
   * Where pending approvals are kept (docs/dialects.md, "ask").
   * @default the state file's, when `store` is one; else in memory
   */
  approvals?: ApprovalStore;
  /** @default HOOKBOX_APPROVAL_TTL_MS, else one hour */
  approvalTtlMs?: number;
  /**
   * Whether a hook's `ask` waits for an approver (`requires_action`). `hookbox run` without a
   * server has nobody to answer: then `ask` blocks with "approval required: …". @default true
   */
  approver?: boolean;
  /**
   * Per-tenant quotas and the server-wide ceiling, applied to requests made with a caller
   * (docs/tenants.md). @default none (no quotas: the library and `hookbox run`)
   */
  quotas?: QuotaBook;
  /** Measures workspaces for the tenants' `disk_mb` quotas. @default none (not enforced) */
  workspaceDisk?: WorkspaceDisk;
}
