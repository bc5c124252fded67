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
import { z } from 'zod';
import { DEFAULT_VOCABULARY, VOCABULARIES, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import { EMPTY_HOOKS_CONFIG, type HooksConfig } from '../config/hooks-config.js';
import { Environment, hooksConfigOf } from './environment.js';
import { ENVIRONMENT_DEFAULTS, type EnvironmentOptions } from './environment-options.js';
import { StateStore } from '../state/state-store.js';
import { parseHooksConfig } from '../config/hooks-config.js';
import { LABEL_ENVIRONMENT } from '../sandbox/labels.js';
import { ownerGone, reapOrphans, reapSocketFolders } from './reaper.js';
import { parseToolEnv } from './tool-env.js';
import { WarmPool, type WarmPoolOptions } from './warm-pool.js';
import { Observers } from '../record/observations.js';
import { newControllerId, newEnvironmentId } from './ids.js';

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
   * Remove, at start, containers and volumes left by hookbox controllers that are gone (and, with a
   * state file, that it does not list).
   * @default false
   */
  reapOrphansOnStart?: boolean;
  /**
   * Also reap orphans every this many milliseconds while the controller runs (0: never).
   * @default 0
   */
  reapIntervalMs?: number;
  /**
   * A SQLite file for durable state. With it, a restarted controller (clean or `kill -9`) finds its
   * live environments again and re-attaches to them. @default none (state in memory only)
   */
  stateFile?: string;
  /**
   * How environments with a `network.allowlist` reach out: extra CAs for hook requests' upstream
   * TLS, the proxy sockets' folder, and (tests only) name overrides. See docs/network.md.
   */
  egress?: EgressSettings;
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

export class Controller {
  readonly identity: ControllerIdentity;
  /** Durable state, when the controller has a state file. */
  readonly state: StateStore | undefined;
  private readonly environments = new Map<string, Environment>();

  /** The periodic orphan reaping, when asked for. */
  private reaper: NodeJS.Timeout | undefined;
  /** Runs the controller-side hooks; undefined when there are none. */
  readonly hookRunner: HookRunner | undefined;
  /** The warm pool, when the controller has one. */
  readonly pool: WarmPool | undefined;
  /** Who watches: the metrics and the console (docs/console.md) add themselves here. */
  readonly observers = new Observers();
  /** See {@link ControllerOptions.filesApiGates}. */
  private filesApiGates = true;

  private constructor(
    readonly client: ContainerClient,
    readonly logger: Logger,
    readonly home: string,
    readonly image: string,
    hooks: readonly Hook[],
    poolOptions: WarmPoolOptions | undefined,
    state: StateStore | undefined,
  ) {
    this.state = state;
    this.identity = {
      id: newControllerId(),
      pid: process.pid,
      ...(state ? { stateFile: state.path } : {}),
    };
    this.hookRunner = hooks.length > 0 ? new HookRunner(hooks) : undefined;
    if (poolOptions && poolOptions.size > 0) {
      this.pool = new WarmPool(() => this.makeSandbox(newEnvironmentId(), []), poolOptions, logger);
      this.pool.refill();
    }
  }

  private async makeSandbox(
    environmentId: string,
    sources: PlacedSource[],
    options?: EnvironmentOptions['sandbox'],
    network?: { allowlist: Allowlist; onRecord: (record: EgressRecord) => void },
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
      image: this.image,
      sources,
      options,
      ...(egress ? { network: egress } : {}),
    });
  }

  /** How networked environments reach out (set once, at start). */
  private egressSettings: EgressSettings | undefined;

  static async start(options: ControllerOptions = {}): Promise<Controller> {
    const logger = options.logger ?? defaultLogger();
    const client = options.client ?? new DockerContainerClient(logger);
    if (options.startEngine ?? true) await ensureEngine(client, { quiet: true });
    else await client.ping();
    const image = await ensureImage(client, logger, { onProgress: options.onProgress });
    const state = options.stateFile ? new StateStore(options.stateFile) : undefined;
    const home = options.home ?? hookboxHome();
    // Orphans: made by a controller that is gone, and not listed in this controller's state.
    const reap = async () => {
      const reaped = await reapOrphans(client, (labels) => {
        const environmentId = labels[LABEL_ENVIRONMENT] ?? '';
        return !state?.hasEnvironment(environmentId) && ownerGone(labels);
      });
      const socketFolders = await reapSocketFolders(
        client,
        socketRootOf(home, options.egress?.socketDir),
      );
      if (
        reaped.containers.length +
          reaped.volumes.length +
          reaped.networks.length +
          socketFolders.length >
        0
      )
        logger.info({ ...reaped, socketFolders }, 'removed orphans of dead controllers');
    };
    if (options.reapOrphansOnStart) await reap();
    const controller = new Controller(
      client,
      logger,
      home,
      image,
      options.hooks ?? [],
      options.pool,
      state,
    );
    controller.egressSettings = options.egress;
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
    for (const row of this.state!.environments()) {
      const container = await this.client.inspectContainer(row.container_id);
      if (!container?.running) {
        this.logger.warn(
          { environmentId: row.id, containerId: row.container_id },
          'environment lost while the controller was down',
        );
        if (container) await this.client.removeContainer(row.container_id).catch(() => {});
        for (const role of ['workspace', 'agents', 'state'] as const) {
          await this.client.removeVolume(volumeName(row.id, role)).catch(() => {});
        }
        this.state!.deleteEnvironment(row.id);
        continue;
      }
      try {
        const sandbox = await Sandbox.reattach({
          client: this.client,
          logger: this.logger,
          environmentId: row.id,
          containerId: row.container_id,
        });
        const settings = storedSettingsSchema.parse(row.settings);
        const gates =
          row.hooks_json === null ? EMPTY_HOOKS_CONFIG : parseHooksConfig(row.hooks_json);
        const environment = this.adopt(sandbox, gates, settings.vocabulary, settings);
        environment.recordEvent('reattached');
        this.observers.emit({
          kind: 'environment_created',
          at: Date.now(),
          environment_id: row.id,
          duration_ms: 0,
          source: 'reattached',
        });
        this.logger.info({ environmentId: row.id }, 're-attached to environment after a restart');
      } catch (error) {
        this.logger.warn(
          { environmentId: row.id, error: (error as Error).message },
          're-attaching failed; the environment stays listed',
        );
      }
    }
  }

  /**
   * Makes an environment. Sources and hooks.json are validated before any container is made; a
   * failure after that removes what was made and reports the original error.
   */
  async createEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
    const startedAt = performance.now();
    const sources = placeSources(options.sources ?? []);
    const allowlist = parseNetworkOptions(options.network);
    const gates = hooksConfigOf(sources, allowlist);
    const env = options.env === undefined ? undefined : parseToolEnv(options.env);
    // Egress records go to the environment's audit log once it exists (no traffic comes before).
    const early: EgressRecord[] = [];
    let recordEgress: (record: EgressRecord) => void = (record) => early.push(record);
    // A pooled environment has the default limits and no network; any other is made cold.
    const pooled = options.sandbox === undefined && !allowlist ? this.pool?.take() : undefined;
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
        this.state?.saveEnvironment({
          id: environmentId,
          container_id: sandbox.containerId,
          created: new Date().toISOString(),
          settings: { ...settings, vocabulary, sandbox: options.sandbox ?? null },
          hooks_json:
            sources.find((source) => source.area === 'agents' && source.path === 'hooks.json')
              ?.content ?? null,
          last_used: new Date().toISOString(),
        });
      const environment = this.adopt(sandbox, gates, vocabulary, settings);
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
      this.state?.deleteEnvironment(environmentId);
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
  ): Environment {
    const id = sandbox.environmentId;
    const audit = new AuditLog(auditLogPath(this.home, id));
    const environment = new Environment(
      sandbox,
      gates,
      vocabulary,
      settings,
      audit,
      this.logger,
      this.hookRunner,
      {
        onGatesReplaced: (hooksJson) => this.state?.setHooksJson(id, hooksJson),
        observe: (observation) => this.observers.emit(observation),
      },
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

  async deleteEnvironment(id: string): Promise<void> {
    const environment = this.getEnvironment(id);
    this.environments.delete(id);
    if (this.hookRunner) {
      const ended = await this.hookRunner.onEnvironmentEnd({
        environmentId: id,
        store: environment.store,
      });
      environment.recordLifecycle(ended.records);
    }
    await environment.delete();
    this.state?.deleteEnvironment(id);
    this.observers.emit({ kind: 'environment_deleted', at: Date.now(), environment_id: id });
  }

  /**
   * Stops without deleting the environments: their connections close, the state file keeps them,
   * and a controller started later with the same state file re-attaches to them. Pooled environments,
   * which no one was handed, are removed.
   */
  async detach(): Promise<void> {
    clearInterval(this.reaper);
    await this.pool?.close();
    for (const environment of this.environments.values()) environment.detach();
    this.environments.clear();
    this.state?.close();
  }

  /** Deletes every environment this controller made. */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    await this.pool?.close();
    const all = [...this.environments.keys()];
    await Promise.allSettled(all.map((id) => this.deleteEnvironment(id)));
    this.state?.close();
  }
}
