import { placeSources, type PlacedSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import type { Hook } from '../policies/hook.js';
import { HookRunner } from '../policies/runner.js';
import { hookboxHome } from '../paths.js';
import { AuditLog, auditLogPath } from '../record/audit-log.js';
import { defaultLogger, type Logger } from '../record/logger.js';
import type { ContainerClient } from '../sandbox/container-client.js';
import { DockerContainerClient } from '../sandbox/docker-container-client.js';
import { ensureEngine } from '../sandbox/engine.js';
import { ensureImage, type BuildProgress } from '../sandbox/image.js';
import { parseNetworkOptions, type Allowlist } from '../network/allowlist.js';
import type { EgressRecord } from '../network/egress-record.js';
import { EnvironmentEgress, type EgressSettings } from '../network/environment-egress.js';
import { socketRootOf } from '../network/socket-folders.js';
import { Sandbox, volumeName, type ControllerIdentity } from '../sandbox/sandbox.js';
import { checkRuntimeName, SANDBOX_DEFAULTS } from '../sandbox/sandbox-options.js';
import { z } from 'zod';
import { DEFAULT_VOCABULARY, VOCABULARIES, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import { EMPTY_HOOKS_CONFIG, type HooksConfig } from '../config/hooks-config.js';
import { Environment, hooksConfigOf, hooksJsonOf } from './environment.js';
import { ENVIRONMENT_DEFAULTS, type EnvironmentOptions } from './environment-options.js';
import { SqliteStateAdapter } from '../state/sqlite-state-adapter.js';
import { PostgresStateStore } from '../state/postgres-state-store.js';
import type { ControllerStateStore, EnvironmentRow } from '../state/store.js';
import { parseHooksConfig } from '../config/hooks-config.js';
import { LABEL_CONTROLLER, LABEL_ENVIRONMENT } from '../sandbox/labels.js';
import {
  liveEnvironmentIds,
  ownerGone,
  reapOrphans,
  reapSocketFolders,
  reapWorkspaceDisks,
} from './reaper.js';
import { diskRootOf } from '../sandbox/workspace-disk.js';
import { pruneAuditLogs, type AuditRetention } from '../record/audit-retention.js';
import { checkEnvironmentOptions } from './environment-options-schema.js';
import { parseToolEnv } from './tool-env.js';
import { WarmPool, type WarmPoolOptions } from './warm-pool.js';
import { Observers } from '../record/observations.js';
import { newControllerId, newEnvironmentId } from './ids.js';
import { Templates } from '../templates/templates.js';
import { DEFAULT_TEMPLATE } from '../templates/template-image.js';

export interface ControllerOptions {
  /** The container engine. @default a DockerContainerClient on the local Docker socket */
  client?: ContainerClient;
  logger?: Logger;
  /** Folder for audit logs. @default $HOOKBOX_HOME or ~/.hookbox */
  home?: string;
  /**
   * Start a Docker engine if none answers (installs Debian's docker.io where allowed).
   * @default true
   */
  startEngine?: boolean;
  /** Progress of a first-time image build, for a terminal. */
  onProgress?: BuildProgress;
  /**
   * The operator's controller-side hooks and policies (`PolicyEnforcer` is one). They run before the
   * sandbox gates, outside the sandbox, in this order. @default []
   */
  hooks?: readonly Hook[];
  /** Keep hardened environments ready, so handing one out costs only the injection of sources. */
  pool?: WarmPoolOptions;
  /**
   * Warm pools of other templates, by template name (`{ full: { size: 1 } }`); `pool` is the
   * `default` template's. Each name must resolve at start (a shipped one is built then).
   * @default {}
   */
  pools?: Record<string, WarmPoolOptions>;
  /**
   * Remove, at start, containers and volumes left by hookbox controllers that are gone (a process
   * killed before it could clean up), except those a state file still lists for its controller to
   * come back to. See docs/operations.md, Leftovers.
   * @default true
   */
  reapOrphansOnStart?: boolean;
  /**
   * Also reap orphans every this many milliseconds while the controller runs (0: never).
   * @default 0
   */
  reapIntervalMs?: number;
  /**
   * Remove audit logs past this retention each time orphans are reaped (at start and every
   * `reapIntervalMs`); the logs of environments that still exist are kept. `hookbox serve` uses the
   * defaults (30 days, 1024 MiB). @default none (audit logs are kept until `hookbox gc`)
   */
  auditRetention?: AuditRetention;
  /**
   * A SQLite file for durable state. With it, a restarted controller (clean or `kill -9`) finds its
   * live environments again and re-attaches to them. @default none (state in memory only)
   */
  stateFile?: string;
  /**
   * PostgreSQL for durable state instead of a file (`postgres://…`): several controller replicas
   * share it, and any of them serves an environment another made (docs/kubernetes.md, Several
   * replicas). @default none
   */
  stateUrl?: string;
  /**
   * How environments with a `network.allowlist` reach out: extra CAs for hook requests' upstream
   * TLS, the proxy sockets' folder, and (tests only) name overrides. See docs/network.md.
   */
  egress?: EgressSettings;
  /**
   * The OCI runtime of environments that do not name one in `sandbox.runtime` (and of the warm
   * pool): `runsc` runs every sandbox under gVisor (docs/gvisor.md).
   * @default $HOOKBOX_RUNTIME, else 'runc'
   */
  runtime?: string;
  /**
   * Use this sandbox image as it is, without checking or building it: the Kubernetes backend's
   * registry reference (docs/kubernetes.md). @default the image built from this checkout
   */
  image?: string;
  /**
   * Keep each command handler's next process started ahead of its event (docs/gates.md, "Prestart
   * and workers"); a handler can still opt out with `"prestart": false`. The environment variable
   * `HOOKBOX_PRESTART=off` turns it off where this option is not given.
   * @default true
   */
  prestartHooks?: boolean;
  /**
   * Whether files-API writes and deletes meet the sandbox gates and controller hooks as the
   * vocabulary's write or delete tool (docs/environments.md, "Files and the gates"). Turn off only
   * where the API's clients are trusted more than the model.
   * @default true
   */
  filesApiGates?: boolean;
}

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
/** The settings saved with an environment (saved state is read back through this schema). */
const storedSettingsSchema = z.object({
  vocabulary: z.enum(Object.keys(VOCABULARIES) as [VocabularyId, ...VocabularyId[]]),
  timeoutMs: z.number().int().positive(),
  outputCapBytes: z.number().int().positive(),
  backgroundProcesses: z.boolean(),
  env: z.record(z.string(), z.string()).optional(),
});

/** The controller's default runtime: its option, else $HOOKBOX_RUNTIME, else runc. */
function defaultRuntime(option: string | undefined): string {
  if (option !== undefined) return checkRuntimeName(option, 'runtime');
  const fromEnv = process.env.HOOKBOX_RUNTIME;
  if (fromEnv) return checkRuntimeName(fromEnv, 'HOOKBOX_RUNTIME');
  return SANDBOX_DEFAULTS.runtime;
}

export class Controller {
  readonly identity: ControllerIdentity;
  /** Durable state, when the controller has a state file or a state URL. */
  readonly state: ControllerStateStore | undefined;
  private readonly environments = new Map<string, Environment>();

  /** The periodic orphan reaping, when asked for. */
  private reaper: NodeJS.Timeout | undefined;
  /** Runs the controller-side hooks; undefined when there are none. */
  readonly hookRunner: HookRunner | undefined;
  /** The warm pools, by template name. */
  readonly pools = new Map<string, WarmPool>();
  /** Which image each template runs (docs/templates.md). */
  readonly templates: Templates;

  /** The `default` template's warm pool, when the controller has one. */
  get pool(): WarmPool | undefined {
    return this.pools.get(DEFAULT_TEMPLATE);
  }
  /** Who watches: the metrics and the console (docs/console.md) add themselves here. */
  readonly observers = new Observers();
  /** Whether environments prestart their hook processes (ControllerOptions.prestartHooks). */
  private prestartHooks = true;
  /** See {@link ControllerOptions.filesApiGates}. */
  private filesApiGates = true;

  private constructor(
    readonly client: ContainerClient,
    readonly logger: Logger,
    readonly home: string,
    readonly image: string,
    hooks: readonly Hook[],
    pools: Map<string, { image: string; options: WarmPoolOptions }>,
    state: ControllerStateStore | undefined,
    templates: Templates,
    /** The default OCI runtime of its sandboxes. */
    readonly runtime: string,
  ) {
    this.templates = templates;
    this.state = state;
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
  }

  private async makeSandbox(
    environmentId: string,
    sources: PlacedSource[],
    options?: EnvironmentOptions['sandbox'],
    network?: { allowlist: Allowlist; onRecord: (record: EgressRecord) => void },
    image: string = this.image,
  ): Promise<Sandbox> {
    // The way out first (the sandbox needs the relay's address); the sandbox then owns it.
    const egress = network
      ? await EnvironmentEgress.create({
          client: this.client,
          logger: this.logger,
          controller: this.identity,
          environmentId,
          image: this.image,
          allowlist: network.allowlist,
          home: this.home,
          settings: this.egressSettings,
          onRecord: network.onRecord,
        })
      : undefined;
    return Sandbox.create({
      client: this.client,
      logger: this.logger,
      controller: this.identity,
      environmentId,
      image,
      sources,
      options: { ...options, runtime: options?.runtime ?? this.runtime },
      ...(egress ? { network: egress } : {}),
      diskRoot: diskRootOf(this.home),
    });
  }

  /** How networked environments reach out (set once, at start). */
  private egressSettings: EgressSettings | undefined;

  static async start(options: ControllerOptions = {}): Promise<Controller> {
    const logger = options.logger ?? defaultLogger();
    const client = options.client ?? new DockerContainerClient(logger);
    if (options.startEngine ?? true) await ensureEngine(client, { quiet: true });
    else await client.ping();
    const image =
      options.image ?? (await ensureImage(client, logger, { onProgress: options.onProgress }));
    const state: ControllerStateStore | undefined = options.stateUrl
      ? await PostgresStateStore.open(options.stateUrl)
      : options.stateFile
        ? new SqliteStateAdapter(options.stateFile)
        : undefined;
    const home = options.home ?? hookboxHome();
    const templates = new Templates(client, logger, image, options.onProgress);
    const pools = new Map<string, { image: string; options: WarmPoolOptions }>();
    for (const [template, poolOptions] of Object.entries({
      ...(options.pool ? { [DEFAULT_TEMPLATE]: options.pool } : {}),
      ...options.pools,
    }))
      pools.set(template, {
        image: await templates.resolve(template, `pool.${template}`),
        options: poolOptions,
      });
    // Orphans: made by a controller that is gone, and not listed in this controller's state.
    const reap = async () => {
      const listed = new Set((await state?.environments())?.map((row) => row.id));
      const reaped = await reapOrphans(client, (labels) => {
        const environmentId = labels[LABEL_ENVIRONMENT] ?? '';
        return !listed.has(environmentId) && ownerGone(labels);
      });
      const socketFolders = await reapSocketFolders(
        client,
        socketRootOf(home, options.egress?.socketDir),
      );
      const disks = await reapWorkspaceDisks(client, diskRootOf(home));
      const auditLogs = options.auditRetention
        ? pruneAuditLogs(home, options.auditRetention, await liveEnvironmentIds(client))
        : [];
      if (auditLogs.length > 0) logger.info({ auditLogs }, 'removed audit logs past retention');
      if (
        reaped.containers.length +
          reaped.volumes.length +
          reaped.networks.length +
          socketFolders.length +
          disks.length >
        0
      )
        logger.info({ ...reaped, socketFolders, disks }, 'removed orphans of dead controllers');
    };
    // Leftovers are a clean-up, never a reason not to start (docs/operations.md, Leftovers).
    if (options.reapOrphansOnStart ?? true)
      await reap().catch((error: unknown) =>
        logger.warn({ error: (error as Error).message }, 'reaping orphans at start failed'),
      );
    const controller = new Controller(
      client,
      logger,
      home,
      image,
      options.hooks ?? [],
      pools,
      state,
      templates,
      defaultRuntime(options.runtime),
    );
    controller.egressSettings = options.egress;
    if (state instanceof PostgresStateStore) state.controllerId = controller.identity.id;
    controller.prestartHooks = options.prestartHooks ?? process.env.HOOKBOX_PRESTART !== 'off';
    controller.filesApiGates = options.filesApiGates ?? true;
    if (state) await controller.restore();
    if (options.reapIntervalMs) {
      controller.reaper = setInterval(() => {
        reap().catch((error: unknown) =>
          logger.warn({ error: (error as Error).message }, 'reaping orphans failed'),
        );
      }, options.reapIntervalMs);
      controller.reaper.unref();
    }
    return controller;
  }

  /**
   * Brings back the environments listed in the state file: a running container is re-attached (its
   * sandbox agent accepts a new connection); one that is gone is forgotten and its volumes removed.
   */
  private async restore(): Promise<void> {
    // Shared state: the other replicas' environments are adopted when a request names them.
    if (this.state!.shared) return;
    for (const row of await this.state!.environments()) await this.reattachRow(row);
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
    let adopting = this.adopting.get(id);
    if (!adopting) {
      adopting = this.reattachRow(row).finally(() => this.adopting.delete(id));
      this.adopting.set(id, adopting);
    }
    await adopting;
    return this.environments.get(id);
  }

  /** Adoptions under way, so two requests for one environment attach once. */
  private readonly adopting = new Map<string, Promise<void>>();

  /** Re-attaches to one listed environment; one whose container is gone is forgotten. */
  private async reattachRow(row: EnvironmentRow): Promise<void> {
    const container = await this.client.inspectContainer(row.container_id);
    if (!container?.running) {
      this.logger.warn(
        { environmentId: row.id, containerId: row.container_id },
        'environment lost while its controller was down',
      );
      if (container) await this.client.removeContainer(row.container_id).catch(() => {});
      for (const role of ['workspace', 'agents', 'state'] as const) {
        await this.client.removeVolume(volumeName(row.id, role)).catch(() => {});
      }
      await this.state!.deleteEnvironment(row.id);
      return;
    }
    try {
      const sandbox = await Sandbox.reattach({
        client: this.client,
        logger: this.logger,
        environmentId: row.id,
        containerId: row.container_id,
      });
      const settings = storedSettingsSchema.parse(row.settings);
      const gates = row.hooks_json === null ? EMPTY_HOOKS_CONFIG : parseHooksConfig(row.hooks_json);
      const environment = this.adopt(sandbox, gates, settings.vocabulary, settings, {
        tenant: row.tenant ?? null,
      });
      // Idle since its last use before the restart: the TTL counts from there.
      const lastUsed = Date.parse(row.last_used);
      if (Number.isFinite(lastUsed)) environment.lastUsedAt = lastUsed;
      environment.recordEvent('reattached');
      this.observers.emit({
        kind: 'environment_created',
        at: Date.now(),
        environment_id: row.id,
        duration_ms: 0,
        source: 'reattached',
      });
      this.logger.info({ environmentId: row.id }, 're-attached to environment');
    } catch (error) {
      this.logger.warn(
        { environmentId: row.id, error: (error as Error).message },
        're-attaching failed; the environment stays listed',
      );
    }
  }

  /**
   * Makes an environment. Sources and hooks.json are validated before any container is made; a
   * failure after that removes what was made and reports the original error.
   */
  async createEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
    checkEnvironmentOptions(options);
    const startedAt = performance.now();
    if (options.sandbox?.runtime !== undefined)
      checkRuntimeName(options.sandbox.runtime, 'sandbox.runtime');
    const sources = placeSources(options.sources ?? []);
    const allowlist = parseNetworkOptions(options.network);
    const gates = hooksConfigOf(sources, allowlist);
    const template = options.template ?? DEFAULT_TEMPLATE;
    const image = await this.templates.resolve(template);
    const env = options.env === undefined ? undefined : parseToolEnv(options.env);
    // Egress records go to the environment's audit log once it exists (no traffic comes before).
    const early: EgressRecord[] = [];
    let recordEgress: (record: EgressRecord) => void = (record) => early.push(record);
    // A pooled environment has the default limits and no network; any other is made cold.
    const pooled =
      options.sandbox === undefined && !allowlist && options.usePool !== false
        ? this.pools.get(template)?.take()
        : undefined;
    let sandbox: Sandbox;
    if (pooled) {
      try {
        await pooled.injectSources(sources);
      } catch (error) {
        await pooled.destroy().catch(() => {});
        throw error;
      }
      sandbox = pooled;
    } else {
      sandbox = await this.makeSandbox(
        newEnvironmentId(),
        sources,
        options.sandbox,
        allowlist ? { allowlist, onRecord: (record) => recordEgress(record) } : undefined,
        image,
      );
    }
    const environmentId = sandbox.environmentId;
    const settings = {
      timeoutMs: options.toolTimeoutMs ?? ENVIRONMENT_DEFAULTS.toolTimeoutMs,
      outputCapBytes: options.outputCapBytes ?? ENVIRONMENT_DEFAULTS.outputCapBytes,
      backgroundProcesses: options.backgroundProcesses ?? ENVIRONMENT_DEFAULTS.backgroundProcesses,
      ...(env ? { env } : {}),
    };
    const vocabulary = options.vocabulary ?? DEFAULT_VOCABULARY;
    try {
      // A networked environment is not kept across restarts: its secrets live only in this process.
      if (!allowlist)
        await this.state?.saveEnvironment({
          id: environmentId,
          container_id: sandbox.containerId,
          created: new Date().toISOString(),
          settings: { ...settings, vocabulary, template, sandbox: options.sandbox ?? null },
          hooks_json: hooksJsonOf(sources),
          last_used: new Date().toISOString(),
          tenant: options.tenant ?? null,
        });
      const environment = this.adopt(sandbox, gates, vocabulary, settings, {
        tenant: options.tenant ?? null,
        pooled: pooled !== undefined,
      });
      environment.recordEvent('created');
      recordEgress = (record) => environment.recordEgress(record);
      early.forEach(recordEgress);
      if (this.hookRunner) {
        const started = await this.hookRunner.onEnvironmentStart({
          environmentId,
          store: environment.store,
        });
        environment.recordLifecycle(started.records);
      }
      this.observers.emit({
        kind: 'environment_created',
        at: Date.now(),
        environment_id: environmentId,
        duration_ms: performance.now() - startedAt,
        source: pooled ? 'pool' : 'cold',
      });
      return environment;
    } catch (error) {
      // Anything failing after the container exists (the audit log's folder, a lifecycle hook):
      // remove what was made, then report the original error.
      this.environments.delete(environmentId);
      await this.state?.deleteEnvironment(environmentId).catch(() => {});
      await sandbox.destroy().catch(() => {});
      throw error;
    }
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
    const environment = new Environment(
      sandbox,
      gates,
      vocabulary,
      settings,
      audit,
      this.logger,
      this.hookRunner,
      {
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
      owner.tenant,
      owner.pooled ?? false,
      { prestart: this.prestartHooks },
      this.filesApiGates,
    );
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
    await Promise.allSettled([...this.pools.values()].map((pool) => pool.close()));
    for (const environment of this.environments.values()) environment.detach();
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
    const environments = [...this.environments.values()];
    this.environments.clear();
    await Promise.allSettled([
      this.pool?.close(),
      ...environments.map((environment) => environment.destroyNow()),
    ]);
    await reapOrphans(this.client, (labels) => labels[LABEL_CONTROLLER] === this.identity.id).catch(
      () => {},
    );
    this.state?.close();
  }

  /** Deletes every environment this controller made. */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.allSettled([...this.pools.values()].map((pool) => pool.close()));
    const all = [...this.environments.keys()];
    await Promise.allSettled(all.map((id) => this.deleteEnvironment(id)));
    await this.state?.close();
  }
}
