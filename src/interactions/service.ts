import type { Controller } from '../environments/controller.js';
import type { Environment } from '../environments/environment.js';
import type { NetworkState } from '../environments/network-change.js';
import { SystemError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { SqliteApprovalStore } from '../state/sqlite-approval-store.js';
import { SqliteInteractionStore } from '../state/sqlite-interaction-store.js';
import type { QuotaBook } from '../tenants/quotas.js';
import type { Caller } from '../tenants/tenant.js';
import type { WorkspaceDisk } from '../tenants/workspace-disk.js';
import { approvalTtlFromEnv } from './approval-flow.js';
import { MemoryApprovalStore, type ApprovalStore } from './approval-store.js';
import { DriverRegistry } from './drivers/index.js';
import { sweepIdle, sweepIntervalOf } from './environment-expiry.js';
import { prepareInteraction, type PrepareParts } from './interaction-prepare.js';
import { runInteraction, type RunParts } from './interaction-run.js';
import { EnvironmentLeases } from './leases.js';
import type { InteractionListener, PreparedInteraction } from './prepared-interaction.js';
import { parseInteractionRequest } from './request.js';
import type { EnvironmentInfo, Interaction } from './schema.js';
import { ServiceEnvironments } from './service-environments.js';
import { ServiceSnapshots } from '../snapshots/service-snapshots.js';
import { interactionSettingsFromEnv, type InteractionServiceOptions } from './service-options.js';
import { interactionAt } from './stored-interactions.js';
import { MemoryInteractionStore, type InteractionStore } from './store.js';

export {
  DEFAULT_MAX_STEPS,
  interactionSettingsFromEnv,
  type InteractionServiceOptions,
  type InteractionSettings,
} from './service-options.js';
export type { InteractionListener, PreparedInteraction } from './prepared-interaction.js';
export { enabledToolsOf, modelToolsOf } from './request-checks.js';

/**
 * Runs interactions (docs/contract.md §9): checks a request, finds or makes its environment, runs its driver,
 * records the steps. Used by `hookbox serve` and by `hookbox run` without a server.
 */
export class InteractionService {
  readonly controller: Controller;
  readonly leases: EnvironmentLeases;
  private readonly logger: Logger | undefined;
  private readonly store: InteractionStore;
  private readonly running = new Set<Promise<unknown>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly abort = new AbortController();
  private closing: Promise<void> | undefined;
  private readonly closeController: boolean;
  private readonly quotas: QuotaBook | undefined;
  /** The workspace measurements behind the `disk_mb` quota, when enforced. */
  readonly workspaceDisk: WorkspaceDisk | undefined;
  /** Finding, describing and deleting environments (service-environments.ts). */
  private readonly environments: ServiceEnvironments;
  /** Snapshots and forks (docs/environments.md, "Snapshots and forks"). */
  readonly snapshots: ServiceSnapshots;
  /** What preparing and running an interaction need of the service. */
  private readonly parts: PrepareParts & RunParts;

  constructor(options: InteractionServiceOptions) {
    const settings = interactionSettingsFromEnv();
    this.controller = options.controller;
    this.logger = options.logger;
    this.store =
      options.store ??
      new MemoryInteractionStore(settings.maxStoredInteractions, settings.maxStoredBytes);
    this.quotas = options.quotas;
    this.workspaceDisk = options.workspaceDisk;
    this.closeController = options.closeController ?? true;
    const approvals: ApprovalStore =
      options.approvals ??
      (this.store instanceof SqliteInteractionStore
        ? new SqliteApprovalStore(this.store.state.path)
        : new MemoryApprovalStore());
    const ttl = options.environmentTtlMs ?? settings.environmentTtlMs;
    this.leases = new EnvironmentLeases(ttl);
    this.environments = new ServiceEnvironments(
      this.controller,
      this.leases,
      this.logger,
      this.quotas,
    );
    this.snapshots = new ServiceSnapshots(this.environments, this.quotas, this.logger);
    this.parts = {
      snapshots: this.snapshots,
      controller: this.controller,
      store: this.store,
      leases: this.leases,
      environments: this.environments,
      drivers: options.drivers ?? new DriverRegistry(),
      approvals,
      approvalTtlMs: options.approvalTtlMs ?? approvalTtlFromEnv(),
      approverEnabled: options.approver ?? true,
      maxSteps: options.maxSteps ?? settings.maxSteps,
      signal: this.abort.signal,
      logger: this.logger,
    };
    this.sweeper = setInterval(
      () => void this.sweep(),
      sweepIntervalOf(ttl, options.sweepIntervalMs),
    );
    this.sweeper.unref();
  }

  /**
   * Checks a request and sets up its environment: every check that can be made is made before an
   * environment is made or changed, so a bad request leaves nothing behind.
   */
  async prepare(body: unknown, caller?: Caller): Promise<PreparedInteraction> {
    if (this.closing)
      throw new SystemError('engine_unavailable', 'hookbox is shutting down', { retryable: true });
    const request = parseInteractionRequest(body);
    if (caller && this.quotas && this.workspaceDisk) {
      const mine = this.controller
        .listEnvironments()
        .filter((environment) => environment.tenant === caller.tenant)
        .map((environment) => environment.id);
      this.quotas.checkDisk(caller, this.workspaceDisk.usedBy(mine));
    }
    const release = caller && this.quotas ? this.quotas.startInteraction(caller) : () => {};
    try {
      return await prepareInteraction(this.parts, request, caller, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * Runs a prepared interaction's driver to the end. A driver failure does not throw: the
   * interaction ends `failed` with the error, and its steps so far are kept.
   */
  run(prepared: PreparedInteraction, listener?: InteractionListener): Promise<Interaction> {
    const work = runInteraction(this.parts, prepared, listener);
    this.running.add(work);
    void work.finally(() => {
      this.running.delete(work);
      prepared.release();
    });
    return work;
  }

  /** {@link prepare} then {@link run}. */
  async create(body: unknown, listener?: InteractionListener): Promise<Interaction> {
    return this.run(await this.prepare(body), listener);
  }

  /**
   * A stored interaction; an unknown id, or one the caller may not see (docs/tenants.md,
   * "Ownership"), is the same 404 naming `field`.
   */
  interactionAt(id: string, field = 'id', caller?: Caller): Promise<Interaction> {
    return interactionAt(this.store, id, field, caller);
  }

  /**
   * A live environment; an unknown one, or one the caller may not see, is a 404 naming `field`.
   * Every route that names an environment finds it here.
   */
  environmentAt(id: string, field: string, caller?: Caller): Environment {
    return this.environments.environmentAt(id, field, caller);
  }

  /** An environment a request works in directly (the files API): found, and its idle time restarts. */
  environmentInUse(id: string, caller?: Caller): Environment {
    return this.environments.environmentInUse(id, caller);
  }

  /** `PATCH /v1beta/environments/{id}/network`: new rules for the next call. */
  replaceNetwork(
    id: string,
    body: unknown,
    caller?: Caller,
  ): Promise<{ environment_id: string; network: NetworkState }> {
    return this.environments.replaceNetwork(id, body, caller);
  }

  /** `GET /v1beta/environments/{id}/network`. */
  networkOf(id: string, caller?: Caller): { environment_id: string; network: NetworkState } {
    return this.environments.networkOf(id, caller);
  }

  /** With shared state, takes on an environment another replica made (Controller.adoptFromState). */
  adoptEnvironment(id: string): Promise<void> {
    return this.environments.adoptEnvironment(id);
  }

  /** `GET /v1beta/environments/{id}`: its real state, asked of the engine. */
  environmentInfo(id: string, caller?: Caller): Promise<EnvironmentInfo> {
    return this.environments.environmentInfo(id, caller);
  }

  /** The live environments the caller may see, each with its real state. */
  listEnvironments(caller?: Caller): ReturnType<ServiceEnvironments['listEnvironments']> {
    return this.environments.listEnvironments(caller);
  }

  /**
   * Makes an environment owned by the caller within its quotas, outside any interaction (an MCP
   * session's: docs/mcp.md); it expires when idle like any other.
   */
  createEnvironmentFor(
    caller: Caller | undefined,
    options: Parameters<ServiceEnvironments['createFor']>[1],
  ): Promise<Environment> {
    return this.environments.createFor(caller, options);
  }

  /** `DELETE /v1beta/environments/{id}`: container and volumes removed (an interaction in it fails). */
  deleteEnvironment(id: string, caller?: Caller): Promise<void> {
    return this.environments.deleteEnvironment(id, caller);
  }

  /** Removes environments idle for the TTL; returns their ids. */
  sweep(): Promise<string[]> {
    return sweepIdle(this.controller, this.leases, this.logger);
  }

  /** How long a pending approval waits before it counts as denied (HOOKBOX_APPROVAL_TTL_MS). */
  get approvalTtlMs(): number {
    return this.parts.approvalTtlMs;
  }

  /** Interactions running now. */
  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Refuses new interactions, waits for those running, stops expiry and (unless
   * `closeController: false`) deletes every environment.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.sweeper);
      this.workspaceDisk?.close();
      await Promise.allSettled([...this.running]);
      if (this.closeController) await this.controller.close();
    })();
    return this.closing;
  }
}
