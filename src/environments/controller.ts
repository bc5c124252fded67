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
import { ensureImage } from '../sandbox/image.js';
import { Sandbox, type ControllerIdentity } from '../sandbox/sandbox.js';
import { DEFAULT_VOCABULARY } from '../tools/registry.js';
import { Environment, hooksConfigOf } from './environment.js';
import { ENVIRONMENT_DEFAULTS, type EnvironmentOptions } from './environment-options.js';
import { reapOrphans } from './reaper.js';
import { WarmPool, type WarmPoolOptions } from './warm-pool.js';
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
  onProgress?: (message: string) => void;
  /**
   * The operator's controller-side hooks and policies (`PolicyEnforcer` is one). They run before the
   * sandbox gates, outside the sandbox, in this order. @default []
   */
  hooks?: readonly Hook[];
  /** Keep hardened environments ready, so handing one out costs only the injection of sources. */
  pool?: WarmPoolOptions;
  /**
   * Remove, at start, containers and volumes left by hookbox controllers that are gone.
   * @default false
   */
  reapOrphansOnStart?: boolean;
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
export class Controller {
  readonly identity: ControllerIdentity = { id: newControllerId(), pid: process.pid };
  private readonly environments = new Map<string, Environment>();

  /** Runs the controller-side hooks; undefined when there are none. */
  readonly hookRunner: HookRunner | undefined;
  /** The warm pool, when the controller has one. */
  readonly pool: WarmPool | undefined;

  private constructor(
    readonly client: ContainerClient,
    readonly logger: Logger,
    readonly home: string,
    readonly image: string,
    hooks: readonly Hook[],
    poolOptions: WarmPoolOptions | undefined,
  ) {
    this.hookRunner = hooks.length > 0 ? new HookRunner(hooks) : undefined;
    if (poolOptions && poolOptions.size > 0) {
      this.pool = new WarmPool(() => this.makeSandbox(newEnvironmentId(), []), poolOptions, logger);
      this.pool.refill();
    }
  }

  private makeSandbox(
    environmentId: string,
    sources: PlacedSource[],
    options?: EnvironmentOptions['sandbox'],
  ): Promise<Sandbox> {
    return Sandbox.create({
      client: this.client,
      logger: this.logger,
      controller: this.identity,
      environmentId,
      image: this.image,
      sources,
      options,
    });
  }

  static async start(options: ControllerOptions = {}): Promise<Controller> {
    const logger = options.logger ?? defaultLogger();
    const client = options.client ?? new DockerContainerClient(logger);
    if (options.startEngine ?? true) await ensureEngine(client, { quiet: true });
    else await client.ping();
    const image = await ensureImage(client, logger, { onProgress: options.onProgress });
    if (options.reapOrphansOnStart) {
      const reaped = await reapOrphans(client);
      if (reaped.containers.length + reaped.volumes.length > 0)
        logger.info(reaped, 'removed orphans of dead controllers');
    }
    return new Controller(
      client,
      logger,
      options.home ?? hookboxHome(),
      image,
      options.hooks ?? [],
      options.pool,
    );
  }

  /**
   * Makes an environment. Sources and hooks.json are validated before any container is made; a
   * failure after that removes what was made and reports the original error.
   */
  async createEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
    const sources = placeSources(options.sources ?? []);
    const gates = hooksConfigOf(sources);
    // A pooled environment has the default limits; one that asks for others is made cold.
    const pooled = options.sandbox === undefined ? this.pool?.take() : undefined;
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
      sandbox = await this.makeSandbox(newEnvironmentId(), sources, options.sandbox);
    }
    const environmentId = sandbox.environmentId;
    const audit = new AuditLog(auditLogPath(this.home, environmentId));
    audit.append({
      kind: 'environment',
      at: new Date().toISOString(),
      environment_id: environmentId,
      event: 'created',
    });
    const environment = new Environment(
      sandbox,
      gates,
      options.vocabulary ?? DEFAULT_VOCABULARY,
      {
        timeoutMs: options.toolTimeoutMs ?? ENVIRONMENT_DEFAULTS.toolTimeoutMs,
        outputCapBytes: options.outputCapBytes ?? ENVIRONMENT_DEFAULTS.outputCapBytes,
        backgroundProcesses:
          options.backgroundProcesses ?? ENVIRONMENT_DEFAULTS.backgroundProcesses,
      },
      audit,
      this.logger,
      this.hookRunner,
    );
    this.environments.set(environmentId, environment);
    if (this.hookRunner) {
      const started = await this.hookRunner.onEnvironmentStart({
        environmentId,
        store: environment.store,
      });
      for (const record of started.records)
        audit.append({ kind: 'lifecycle_hook', at: new Date().toISOString(), ...record });
    }
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
  }

  /** Deletes every environment this controller made. */
  async close(): Promise<void> {
    await this.pool?.close();
    const all = [...this.environments.keys()];
    await Promise.allSettled(all.map((id) => this.deleteEnvironment(id)));
  }
}
