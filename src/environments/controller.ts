import { placeSources } from '../config/sources.js';
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

  private constructor(
    readonly client: ContainerClient,
    readonly logger: Logger,
    readonly home: string,
    readonly image: string,
    hooks: readonly Hook[],
  ) {
    this.hookRunner = hooks.length > 0 ? new HookRunner(hooks) : undefined;
  }

  static async start(options: ControllerOptions = {}): Promise<Controller> {
    const logger = options.logger ?? defaultLogger();
    const client = options.client ?? new DockerContainerClient(logger);
    if (options.startEngine ?? true) await ensureEngine(client, { quiet: true });
    else await client.ping();
    const image = await ensureImage(client, logger, { onProgress: options.onProgress });
    return new Controller(
      client,
      logger,
      options.home ?? hookboxHome(),
      image,
      options.hooks ?? [],
    );
  }

  /**
   * Makes an environment. Sources and hooks.json are validated before any container is made; a
   * failure after that removes what was made and reports the original error.
   */
  async createEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
    const sources = placeSources(options.sources ?? []);
    const gates = hooksConfigOf(sources);
    const environmentId = newEnvironmentId();
    const sandbox = await Sandbox.create({
      client: this.client,
      logger: this.logger,
      controller: this.identity,
      environmentId,
      image: this.image,
      sources,
      options: options.sandbox,
    });
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
    const all = [...this.environments.keys()];
    await Promise.allSettled(all.map((id) => this.deleteEnvironment(id)));
  }
}
