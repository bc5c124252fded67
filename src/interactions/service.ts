import type { NetworkState } from '../controller/network-change.js';
import { SystemError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import type { QuotaBook } from '../tenants/quotas.js';
import type { Caller } from '../tenants/tenant.js';
import { TenantDisk } from '../tenants/tenant-disk.js';
import type { WorkspaceDisk } from '../tenants/workspace-disk.js';
import { approvalTtlFromEnv } from './approval-flow.js';
import { MemoryApprovalStore, type ApprovalStore } from '../state/approvals.js';
import { DriverRegistry } from './drivers/index.js';
import { sweepIdle, sweepIntervalOf } from './environment-expiry.js';
import { prepareInteraction, type PrepareParts } from './interaction-prepare.js';
import { runInteraction, type RunParts } from './interaction-run.js';
import { EnvironmentLeases } from './leases.js';
import type { InteractionListener, PreparedInteraction } from './prepared-interaction.js';
import { parseInteractionRequest } from './request.js';
import type { EnvironmentInfo, Interaction } from './schema.js';
import type {
  EnvironmentOf,
  RealServiceController,
  ServiceController,
  ServiceEnvironment,
} from './service-controller.js';
import { ServiceEnvironments } from './service-environments.js';
import { ServiceSnapshots } from './service-snapshots.js';
import { interactionSettingsFromEnv, type InteractionServiceOptions } from './service-options.js';
import { Feed, InteractionFeeds } from './interaction-feeds.js';
import { replayEvents, SdkEventTranslator } from './sdk-events.js';
import { interactionAt } from './stored-interactions.js';
import { MemoryInteractionStore, type InteractionStore, type StoredInteraction } from './store.js';

export { type InteractionServiceOptions } from './service-options.js';
export type { InteractionListener, PreparedInteraction, RunEvent } from './prepared-interaction.js';
/**
 * Runs interactions (docs/contract.md §9): checks a request, finds or makes its environment, runs its driver,
 * records the steps. Used by `hookbox serve` and by `hookbox run` without a server.
 */
export class InteractionService<
  // The controller: the real one, or a unit test's fake that meets ServiceController
  // (docs/testing.md, "Fakes the compiler checks"), over the environments it makes.
  C extends ServiceController<EnvironmentOf<C>> = RealServiceController,
> {
  readonly controller: C;
  readonly leases: EnvironmentLeases;
  private readonly logger: Logger | undefined;
  private readonly store: InteractionStore;
  private readonly running = new Set<Promise<unknown>>();
  /** Running interactions, by id: how to cancel each, and its end. */
  private readonly active = new Map<
    string,
    { cancel: AbortController; done: Promise<Interaction> }
  >();
  /** The SDK events of running and recently ended interactions (docs/gemini-sdks.md). */
  private readonly feeds = new InteractionFeeds();
  private readonly sweeper: NodeJS.Timeout;
  private readonly abort = new AbortController();
  private closing: Promise<void> | undefined;
  private readonly closeController: boolean;
  private readonly quotas: QuotaBook | undefined;
  /** The workspace measurements behind the `disk_mb` quota, when enforced. */
  readonly workspaceDisk: WorkspaceDisk | undefined;
  /** What counts against each tenant's `disk_mb`: workspaces and snapshots (when enforced). */
  private readonly tenantDisk: TenantDisk | undefined;
  /** Finding, describing and deleting environments (service-environments.ts). */
  readonly environments: ServiceEnvironments<EnvironmentOf<C>>;
  /** Snapshots and forks (docs/environments.md, "Snapshots and forks"). */
  readonly snapshots: ServiceSnapshots<EnvironmentOf<C>>;
  /** What preparing and running an interaction need of the service. */
  private readonly parts: PrepareParts<EnvironmentOf<C>> & RunParts;

  /** The agents hookbox can run; a stored agent's `base_agent` must be one (docs/agents.md). */
  get drivers(): DriverRegistry {
    return this.parts.drivers;
  }

  constructor(options: InteractionServiceOptions<C>) {
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
      options.approvals ?? this.controller.state?.approvals ?? new MemoryApprovalStore();
    const ttl = options.environmentTtlMs ?? settings.environmentTtlMs;
    this.leases = new EnvironmentLeases(ttl);
    this.environments = new ServiceEnvironments<EnvironmentOf<C>>(
      this.controller,
      this.leases,
      this.logger,
      this.quotas,
    );
    this.tenantDisk =
      this.quotas && this.workspaceDisk
        ? new TenantDisk(this.workspaceDisk, this.controller, this.quotas)
        : undefined;
    this.snapshots = new ServiceSnapshots(
      this.environments,
      this.quotas,
      this.logger,
      this.tenantDisk,
    );
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
  async prepare(body: unknown, caller?: Caller): Promise<PreparedInteraction<EnvironmentOf<C>>> {
    if (this.closing)
      throw new SystemError('engine_unavailable', 'hookbox is shutting down', { retryable: true });
    // An agent the caller stored runs as its definition says (docs/agents.md).
    const request = parseInteractionRequest(await this.controller.agents.expand(body, caller));
    if (caller && this.tenantDisk) await this.tenantDisk.check(caller);
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
   * interaction ends `failed` with the error, and its steps so far are kept. Its SDK events go to
   * its feed (`follow`); `liveOutput` sends running code's output as events too.
   */
  run(
    prepared: PreparedInteraction<EnvironmentOf<C>>,
    listener?: InteractionListener,
    options: { liveOutput?: boolean } = {},
  ): Promise<Interaction> {
    const { id } = prepared.interaction;
    const feed = this.feeds.open(id);
    const translator = new SdkEventTranslator((event) => feed.push(event));
    const cancel = new AbortController();
    const work = runInteraction(
      this.parts,
      prepared,
      (event) => {
        translator.run(event);
        listener?.(event);
      },
      { cancel: cancel.signal, liveOutput: options.liveOutput ?? listener !== undefined },
    );
    this.active.set(id, { cancel, done: work });
    this.running.add(work);
    void work
      .then(async () => {
        // `store: false`: answered, then forgotten (docs/gemini-sdks.md).
        if (prepared.request.store === false) {
          await this.store.remove(id);
          this.feeds.drop(id);
        }
      })
      .catch(() => {})
      .finally(() => {
        this.running.delete(work);
        this.active.delete(id);
        this.feeds.close(id);
        prepared.release();
      });
    return work;
  }

  /**
   * The SDK events of an interaction the caller may see, after `lastEventId`: its own while the
   * server holds them (it runs, or ended among the last few), else rebuilt from its steps.
   */
  async follow(id: string, lastEventId: string | undefined, caller?: Caller) {
    const interaction = await this.interactionAt(id, 'id', caller);
    const feed = this.feeds.get(id);
    if (feed) return feed.follow(lastEventId);
    const replayed = new Feed();
    for (const event of replayEvents(interaction)) replayed.push(event);
    return replayed.follow(lastEventId);
  }

  /**
   * `POST /v1beta/interactions/{id}/cancel`: a running interaction stops — the call running now is
   * killed (its result recorded), nothing after it runs — and ends `cancelled`.
   */
  async cancel(id: string, caller?: Caller): Promise<Interaction> {
    const interaction = await this.interactionAt(id, 'id', caller);
    const active = this.active.get(id);
    if (!active) {
      if (interaction.status === 'cancelled') return interaction;
      throw new UserError(
        'invalid_argument',
        `id: interaction ${id} is ${interaction.status}; only a running one can be cancelled`,
        { details: { field: 'id' } },
      );
    }
    active.cancel.abort();
    // The call running now is killed in its sandbox; the driver stops at its next turn.
    const live: ServiceEnvironment[] = this.controller.listEnvironments();
    const environment = live.find((candidate) => candidate.id === interaction.environment_id);
    await environment?.sandbox.request('kill_tool_processes', {}, 10_000).catch(() => {});
    await active.done;
    return this.interactionAt(id, 'id', caller);
  }

  /** `DELETE /v1beta/interactions/{id}`: a running one is cancelled first. */
  async deleteInteraction(id: string, caller?: Caller): Promise<void> {
    await this.interactionAt(id, 'id', caller);
    if (this.active.has(id)) await this.cancel(id, caller);
    await this.store.remove(id);
    this.feeds.drop(id);
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
   * The most recently updated stored interactions, newest first (none when the store does not
   * outlive the process): the console's lists after a restart (docs/console.md).
   */
  async recentStoredInteractions(limit: number): Promise<StoredInteraction[]> {
    return (await this.store.recent?.(limit)) ?? [];
  }

  /**
   * A live environment; an unknown one, or one the caller may not see, is a 404 naming `field`.
   * Every route that names an environment finds it here.
   */
  environmentAt(id: string, field: string, caller?: Caller): EnvironmentOf<C> {
    return this.environments.environmentAt(id, field, caller);
  }

  /** An environment a request works in directly (the files API): found, and its idle time restarts. */
  environmentInUse(id: string, caller?: Caller): EnvironmentOf<C> {
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
  listEnvironments(
    caller?: Caller,
  ): ReturnType<ServiceEnvironments<EnvironmentOf<C>>['listEnvironments']> {
    return this.environments.listEnvironments(caller);
  }

  /**
   * Makes an environment owned by the caller within its quotas, outside any interaction (an MCP
   * session's: docs/mcp.md); it expires when idle like any other.
   */
  createEnvironmentFor(
    caller: Caller | undefined,
    options: Parameters<ServiceEnvironments<EnvironmentOf<C>>['createFor']>[1],
  ): Promise<EnvironmentOf<C>> {
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
