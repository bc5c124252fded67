import type { PlacedSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import { HookRunner } from '../hooks/controller-hooks/runner.js';
import { AuditLog, auditLogPath } from '../record/audit-log.js';
import type { Logger } from '../record/logger.js';
import type { Backend } from '../sandbox/backend.js';
import type { Allowlist } from '../network/allowlist.js';
import type { EgressRecord } from '../record/egress-record.js';
import type { EgressSettings } from '../network/environment-egress.js';
import type { Sandbox, ControllerIdentity } from '../sandbox/sandbox.js';
import type { VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import type { HooksConfig } from '../config/hooks-config.js';
import { Environment } from './environment.js';
import type { EnvironmentOptions } from './environment-options.js';
import { SqlStateStore } from '../state/sql-state-store.js';
import type { ControllerStateStore } from '../state/store.js';
import { LABEL_CONTROLLER } from '../sandbox/labels.js';
import { reapOrphans } from './reaper.js';
import { WarmPool } from './warm-pool.js';
import { Observers } from '../record/observations.js';
import { newControllerId, newEnvironmentId } from '../ids.js';
import { DEFAULT_TEMPLATE } from '../templates/template-image.js';
import {
  defaultRuntime,
  type ControllerOptions,
  type ControllerParts,
} from './controller-options.js';
import { Reattacher } from './controller-restore.js';
import { makeSandbox } from './controller-sandboxes.js';
import { KnownRuntimes } from '../sandbox/known-runtimes.js';
import { prepare } from './controller-start.js';
import { createEnvironment, type CopiedFrom } from './environment-creation.js';
import type { Templates } from '../templates/templates.js';
import type { WorkspaceFill } from '../sandbox/sandbox-create.js';
import { Snapshots } from '../snapshots/snapshots.js';
import {
  checkSnapshotOptions,
  createFromSnapshot,
  snapshotsOf,
  sweepSnapshotsEvery,
} from '../snapshots/controller-snapshots.js';
import type { SnapshotRow } from '../snapshots/snapshot-rows.js';
import { credentialsFor } from '../credentials/credentials-for.js';
import { MemoryAgentRows } from '../agents/agent-rows.js';
import { Agents } from '../agents/agents.js';
import type { Credentials } from '../credentials/credentials.js';

export type { ControllerOptions } from './controller-options.js';

/**
 * The controller: owns environments, talks to the engine. `Controller.start()` makes sure an engine
 * answers and the sandbox image exists (building it when its inputs changed).
 *
 * ```ts
 * const controller = await Controller.start();
 * const env = await controller.createEnvironment({ sources });
 * const outcome = await env.call({ name: 'code_execution', args: { code: 'echo hello' } });
 * await env.delete();
 * ```
 */
export class Controller {
  /** Where its sandboxes run ({@link ControllerParts.backend}). */
  readonly backend: Backend;
  readonly logger: Logger;
  readonly home: string;
  readonly image: string;
  readonly runtime: string;
  readonly identity: ControllerIdentity;
  /** Durable state, when the controller has a state file or a state URL. */
  readonly state: ControllerStateStore | undefined;
  private readonly environments = new Map<string, Environment>();

  /** The periodic orphan reaping, when asked for. */
  private reaper: NodeJS.Timeout | undefined;
  /** Snapshots and forks (docs/environments.md, "Snapshots and forks"). */
  readonly snapshots: Snapshots;
  /** The periodic deletion of expired snapshots. */
  private snapshotSweeper: NodeJS.Timeout | undefined;
  /** Runs the controller-side hooks; undefined when there are none. */
  readonly hookRunner: HookRunner | undefined;
  /** The warm pools, by template name. */
  readonly pools = new Map<string, WarmPool>();
  /** Which image each template runs (docs/templates.md). */
  readonly templates: Templates;
  /**
   * Stored credentials (docs/credentials.md): `create`, `list`, `get`, `delete`. Kept in the state
   * file or database when there is one, else in memory; always sealed with `HOOKBOX_SECRET_KEY`.
   */
  readonly credentials: Credentials;
  /** Stored agents (docs/agents.md), kept where the credentials are. */
  readonly agents: Agents;

  /** The `default` template's warm pool, when the controller has one. */
  get pool(): WarmPool | undefined {
    return this.pools.get(DEFAULT_TEMPLATE);
  }
  /** Who watches: the metrics and the console (docs/console.md) add themselves here. */
  readonly observers = new Observers();
  /** Whether environments prestart their hook processes (ControllerOptions.prestartHooks). */
  private readonly prestartHooks: boolean;
  /** See {@link ControllerOptions.filesApiGates}. */
  private readonly filesApiGates: boolean;

  private constructor(parts: ControllerParts) {
    ({ backend: this.backend, logger: this.logger, home: this.home, image: this.image } = parts);
    ({ runtime: this.runtime, templates: this.templates, state: this.state } = parts);
    ({ egress: this.egressSettings, filesApiGates: this.filesApiGates } = parts);
    this.prestartHooks = parts.prestartHooks;
    const { state, hooks, pools, logger, secretKey } = parts;
    this.credentials = credentialsFor(state, secretKey);
    this.agents = new Agents(state?.agents ?? new MemoryAgentRows());
    this.identity = {
      id: newControllerId(),
      pid: process.pid,
      ...(state ? { stateFile: state.location } : {}),
    };
    this.hookRunner = hooks.length > 0 ? new HookRunner(hooks) : undefined;
    for (const [template, { image: poolImage, options }] of pools) {
      if (options.size <= 0) continue;
      const pool = new WarmPool(
        () => this.makeSandbox(newEnvironmentId(), [], undefined, undefined, poolImage),
        options,
        logger,
      );
      this.pools.set(template, pool);
      pool.refill();
    }
    this.snapshots = snapshotsOf(this, parts.snapshots);
  }

  private makeSandbox(
    environmentId: string,
    sources: PlacedSource[],
    options?: EnvironmentOptions['sandbox'],
    network?: { allowlist: Allowlist; onRecord: (record: EgressRecord) => void },
    image: string = this.image,
    fill?: WorkspaceFill,
  ): Promise<Sandbox> {
    const maker = {
      backend: this.backend,
      logger: this.logger,
      identity: this.identity,
      home: this.home,
      image: this.image,
      runtime: this.runtime,
      egressSettings: this.egressSettings,
    };
    return makeSandbox(maker, environmentId, sources, options, network, image, fill);
  }

  /** The engine's runtimes, for refusing an unknown `sandbox.runtime` with a 400 (docs/gvisor.md). */
  private runtimes: KnownRuntimes | undefined;

  /** Refuses, naming `field`, a runtime the engine does not know. */
  checkRuntime(runtime: string, field = 'sandbox.runtime'): Promise<void> {
    this.runtimes ??= new KnownRuntimes(this.backend.runtime);
    return this.runtimes.check(runtime, field);
  }

  /** How networked environments reach out (set once, at start). */
  private readonly egressSettings: EgressSettings | undefined;

  static async start(options: ControllerOptions = {}): Promise<Controller> {
    checkSnapshotOptions(options.snapshots);
    const { backend, logger, home, image, state, templates, pools, reapPeriodically } =
      await prepare(options);
    const controller = new Controller({
      ...{ backend, logger, home, image, pools, state, templates },
      hooks: options.hooks ?? [],
      runtime: defaultRuntime(options.runtime),
      secretKey: options.secretKey,
      egress: options.egress,
      prestartHooks: options.prestartHooks ?? process.env.HOOKBOX_PRESTART !== 'off',
      filesApiGates: options.filesApiGates ?? true,
      snapshots: options.snapshots,
    });
    if (state instanceof SqlStateStore) state.controllerId = controller.identity.id;
    if (state) await controller.restore();
    controller.reaper = reapPeriodically();
    controller.snapshotSweeper = sweepSnapshotsEvery(
      controller.snapshots,
      logger,
      options.snapshots,
    );
    return controller;
  }

  /** Re-attaches what the state file lists; what is gone is forgotten (controller-restore.ts). */
  private async restore(): Promise<void> {
    // Shared state: the other replicas' environments are adopted when a request names them.
    if (this.state!.shared) return;
    for (const row of await this.state!.environments()) await this.reattacher.reattach(row);
  }

  /**
   * Takes on an environment listed in shared state that this replica does not hold (another
   * replica made it, or is gone): re-attaches to its running container. Undefined when the state
   * does not list it or its container is gone.
   */
  async adoptFromState(id: string): Promise<Environment | undefined> {
    const live = this.environments.get(id);
    if (live) return live;
    const row = await this.state?.environment(id);
    if (!row) return undefined;
    await this.reattacher.reattach(row);
    return this.environments.get(id);
  }

  /** Re-attaches listed environments (controller-restore.ts). */
  private readonly reattacher = new Reattacher(() => ({
    client: this.backend.runtime,
    logger: this.logger,
    state: this.state!,
    observers: this.observers,
    adopt: (...args) => this.adopt(...args),
  }));

  /**
   * Makes an environment. Sources and hooks.json are validated before any container is made; a
   * failure after that removes what was made and reports the original error.
   */
  async createEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
    if (options.snapshot !== undefined) return createFromSnapshot(this.snapshots, options);
    return this.createCopied(options);
  }

  /** Makes an environment; with `copied`, its workspace and gates are copied in (src/snapshots/). */
  createCopied(options: EnvironmentOptions, copied?: CopiedFrom): Promise<Environment> {
    return createEnvironment(
      {
        templates: this.templates,
        pools: this.pools,
        state: this.state,
        hookRunner: this.hookRunner,
        observers: this.observers,
        credentials: this.credentials,
        makeSandbox: (...args) => this.makeSandbox(...args),
        checkRuntime: (runtime, field) => this.checkRuntime(runtime, field),
        adopt: (...args) => this.adopt(...args),
        forget: (id) => this.environments.delete(id),
      },
      options,
      copied,
    );
  }

  /** Takes a snapshot of an environment between its calls (docs/environments.md, "Snapshots and forks"). */
  async snapshotEnvironment(id: string): Promise<SnapshotRow> {
    return this.snapshots.take(this.getEnvironment(id));
  }

  /** Makes `count` new environments with a copy of this one's workspace and gates. */
  async forkEnvironment(id: string, count = 1): Promise<Environment[]> {
    return this.snapshots.fork(this.getEnvironment(id), count);
  }

  /** Wraps a sandbox as a live environment of this controller. */
  private adopt(
    sandbox: Sandbox,
    gates: HooksConfig,
    vocabulary: VocabularyId,
    settings: ToolRunSettings,
    owner: { tenant: string | null; pooled?: boolean } = { tenant: null },
  ): Environment {
    const id = sandbox.environmentId;
    const audit = new AuditLog(auditLogPath(this.home, id), owner.tenant);
    let lastTouched = 0;
    const environment = new Environment({
      sandbox,
      gates,
      vocabulary,
      settings,
      audit,
      logger: this.logger,
      controllerHooks: this.hookRunner,
      events: {
        onGatesReplaced: (hooksJson) =>
          void this.state?.setHooksJson(id, hooksJson).catch((error: unknown) => {
            this.logger.warn(
              { environmentId: id, error: (error as Error).message },
              'saving the new hooks.json failed',
            );
          }),
        observe: (observation) => this.observers.emit(observation),
        // The last use survives a restart (at most one write a second per environment).
        onUsed: () => {
          const now = Date.now();
          if (now - lastTouched < 1000) return;
          lastTouched = now;
          void this.state?.touchEnvironment(id).catch(() => {});
        },
      },
      tenant: owner.tenant,
      pooled: owner.pooled ?? false,
      hookProcesses: { prestart: this.prestartHooks },
      filesApiGates: this.filesApiGates,
    });
    this.environments.set(id, environment);
    return environment;
  }

  /** A live environment by id; an unknown id is the caller's mistake. */
  getEnvironment(id: string): Environment {
    const environment = this.environments.get(id);
    if (!environment)
      throw new UserError('not_found', `environment_id: no environment ${JSON.stringify(id)}`, {
        details: { field: 'environment_id' },
      });
    return environment;
  }

  listEnvironments(): Environment[] {
    return [...this.environments.values()];
  }

  /** Deletes an environment; `actor` (an admin acting for its owner) is recorded in its audit log. */
  async deleteEnvironment(id: string, actor?: string): Promise<void> {
    const environment = this.getEnvironment(id);
    if (this.deleting.has(id)) return this.deleting.get(id);
    // Listed until its container and volumes are gone, so "not found" means nothing is left.
    const deleting = (async () => {
      try {
        if (this.hookRunner) {
          const ended = await this.hookRunner.onEnvironmentEnd({
            environmentId: id,
            store: environment.store,
          });
          environment.recordLifecycle(ended.records);
        }
        await environment.delete(actor);
        await this.state?.deleteEnvironment(id);
        this.observers.emit({ kind: 'environment_deleted', at: Date.now(), environment_id: id });
      } finally {
        this.environments.delete(id);
        this.deleting.delete(id);
      }
    })();
    this.deleting.set(id, deleting);
    return deleting;
  }

  /** Deletions under way, so a second delete of the same environment waits for the first. */
  private readonly deleting = new Map<string, Promise<void>>();

  /**
   * Stops without deleting the environments: their connections close, the state file keeps them,
   * and a controller started later with the same state file re-attaches to them. Pooled environments,
   * which no one was handed, are removed.
   */
  async detach(): Promise<void> {
    clearInterval(this.reaper);
    clearInterval(this.snapshotSweeper);
    await Promise.allSettled([...this.pools.values()].map((pool) => pool.close()));
    await Promise.allSettled(
      [...this.environments.values()].map((environment) => environment.detach()),
    );
    this.environments.clear();
    await this.state?.close();
  }

  /**
   * Removes everything this controller made, now: containers and volumes of its environments (calls
   * in flight fail), pooled ones, and any half-made in a creation still under way (found by this
   * controller's label). For a process on its way out (Ctrl-C on `hookbox call`; docs/operations.md).
   */
  async closeNow(): Promise<void> {
    clearInterval(this.reaper);
    clearInterval(this.snapshotSweeper);
    const environments = [...this.environments.values()];
    this.environments.clear();
    await Promise.allSettled([
      ...[...this.pools.values()].map((pool) => pool.close()),
      ...environments.map((environment) => environment.destroyNow()),
    ]);
    const mine = (labels: Record<string, string>) => labels[LABEL_CONTROLLER] === this.identity.id;
    await reapOrphans(this.backend, mine).catch(() => {});
    await this.state?.close();
  }

  /**
   * Deletes every environment this controller made, and its snapshots when it keeps no state
   * (with a state file or URL they stay, for the next controller).
   */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    clearInterval(this.snapshotSweeper);
    await Promise.allSettled([...this.pools.values()].map((pool) => pool.close()));
    const all = [...this.environments.keys()];
    await Promise.allSettled(all.map((id) => this.deleteEnvironment(id)));
    if (!this.state) await this.snapshots.deleteAll();
    await this.state?.close();
  }
}
