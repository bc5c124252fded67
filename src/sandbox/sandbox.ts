import type { PlacedSource } from '../config/sources.js';
import { SystemError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { reachAgent, type AgentLinks } from './agent-channel.js';
import { AgentConnection, type AgentEvent } from './agent-connection.js';
import type { AgentAnswerOf, AgentOp, AgentRequestOf } from './protocol/index.js';
import type { ContainerRuntime, ContainerState } from './container-runtime.js';
import { LABEL_ENVIRONMENT, LABEL_ROLE, LABEL_WORKSPACE_DISK } from './labels.js';
import {
  AGENT_READY_TIMEOUT_MS,
  createSandbox,
  type SandboxCreateParams,
  type SandboxNetwork,
} from './sandbox-create.js';
import { VOLUME_ROLES, volumeName } from './sandbox-volumes.js';
import { wireFiles } from './wire-sources.js';
import { removeWorkspaceDiskAt } from './workspace-disk.js';

export type { ControllerIdentity } from './labels.js';
export type { SandboxCreateParams, SandboxNetwork } from './sandbox-create.js';
export { volumeName } from './sandbox-volumes.js';

/** How long a lost channel socket waits for the engine to report its container stopped. */
const CHANNEL_LOSS_SETTLE_MS = 3_000;

/**
 * One environment's container, its volumes (three; two when /workspace is a disk of its own) and
 * the stream to its sandbox agent.
 * Made by {@link Sandbox.create}; on any failure after the first resource exists, everything made
 * so far is removed before the original error is rethrown.
 */
export class Sandbox {
  /** Set once the sandbox is disconnected or destroyed on purpose: no re-attaching then. */
  private closed = false;

  private constructor(
    readonly environmentId: string,
    readonly containerId: string,
    private agent: AgentConnection,
    /** The attached stdio when requests go over the channel socket: kept for the agent's log. */
    private attached: AgentConnection | undefined,
    private readonly client: ContainerRuntime,
    private readonly logger: Logger,
    /** The network it joined, when the environment has an allowlist. */
    readonly network?: SandboxNetwork,
    /** The folder of its workspace disk (src/sandbox/workspace-disk.ts), when it has one. */
    readonly diskFolder?: string,
  ) {}

  static create(params: SandboxCreateParams): Promise<Sandbox> {
    return createSandbox(
      params,
      ({ containerId, agent, attached, diskFolder }) =>
        new Sandbox(
          params.environmentId,
          containerId,
          agent,
          attached,
          params.client,
          params.logger,
          params.network,
          diskFolder,
        ),
    );
  }

  /**
   * Connects to the sandbox agent of a running container again (after a controller restart, or a
   * broken stream): the agent serves a new connection on the container's stdio.
   */
  static async reattach(params: {
    client: ContainerRuntime;
    logger: Logger;
    environmentId: string;
    containerId: string;
  }): Promise<Sandbox> {
    const { agent, attached } = await Sandbox.connect(
      params.client,
      params.logger,
      params.containerId,
    );
    // Its disk, as its label names it: the controller that made it may have kept disks elsewhere.
    const [container] = await params.client.listContainers([
      `${LABEL_ENVIRONMENT}=${params.environmentId}`,
      `${LABEL_ROLE}=sandbox`,
    ]);
    return new Sandbox(
      params.environmentId,
      params.containerId,
      agent,
      attached,
      params.client,
      params.logger,
      undefined,
      container?.labels[LABEL_WORKSPACE_DISK],
    );
  }

  /** Attaches to the agent, and reaches it on its channel socket where the engine allows. */
  private static async connect(
    client: ContainerRuntime,
    logger: Logger,
    containerId: string,
  ): Promise<AgentLinks> {
    const agent = new AgentConnection(await client.attach(containerId), logger, containerId);
    let hello;
    try {
      hello = await agent.handshake(AGENT_READY_TIMEOUT_MS);
    } catch (error) {
      agent.close();
      throw error;
    }
    return reachAgent(client, logger, containerId, agent, hello.instance);
  }

  /** How requests reach the agent: its channel socket, or the container's attached stdio. */
  get transport(): 'channel' | 'stdio' {
    return this.attached ? 'channel' : 'stdio';
  }

  /**
   * Places sources in the running environment: gates into /.agents, written by the sandbox agent as
   * root through the only writable mount of that volume (which tool code cannot reach), workspace
   * files written as the tool user, so the kernel checks them and tool code owns them. One message
   * on the agent's stream: handing out a pooled environment costs milliseconds, not a Docker call.
   */
  async injectSources(sources: PlacedSource[]): Promise<void> {
    if (sources.length === 0) return;
    await this.request('write_sources', { files: wireFiles(sources) }, 60_000);
  }

  /** Adds workspace sources to a running environment. */
  async addWorkspaceSources(sources: PlacedSource[]): Promise<void> {
    await this.injectSources(sources.filter((source) => source.area === 'workspace'));
  }

  /**
   * Replaces everything under /.agents, or changes nothing: the agent checks and decodes every file,
   * writes them into a staging folder beside the gates and only then swaps them in with renames
   * (docs/security.md, "Replacing the gates"). The caller holds the environment's lock, so no call
   * runs while the files change.
   */
  async replaceAgents(sources: PlacedSource[]): Promise<void> {
    const files = wireFiles(sources.filter((source) => source.area === 'agents'));
    await this.request('replace_agents', { files }, 60_000);
  }

  /**
   * Whether the container still runs, as the engine sees it (it may have been killed from outside):
   * undefined when it is running, else what became of it.
   */
  async lostReason(): Promise<string | undefined> {
    const state = await this.client.inspectContainer(this.containerId);
    if (!state) return 'its container is gone';
    if (state.running) return undefined;
    return `its container ${state.oomKilled ? 'was OOM-killed' : `is ${state.status}`} (exit code ${state.exitCode})`;
  }

  /**
   * The engine's list of changes to the container's root filesystem (src/sandbox/container-runtime.ts);
   * undefined where the engine cannot tell.
   */
  rootFilesystemChanges(): Promise<string[] | undefined> {
    return this.client.rootFilesystemChanges?.(this.containerId) ?? Promise.resolve(undefined);
  }

  /**
   * Sends one request to the sandbox agent, its answer checked against the protocol
   * (docs/agent-protocol.md); a lost agent becomes an error that says what happened.
   */
  async request<Op extends AgentOp>(
    op: Op,
    body: AgentRequestOf<Op>,
    answerTimeoutMs: number,
    onEvent?: (event: AgentEvent) => void,
  ): Promise<AgentAnswerOf<Op>> {
    // A stream that broke between calls (an engine restart) is re-attached before this one.
    if (this.agent.lost !== undefined) await this.reconnect();
    try {
      return await this.agent.request(op, body, answerTimeoutMs, onEvent);
    } catch (error) {
      if (
        error instanceof SystemError &&
        (error.code === 'sandbox_agent_lost' || error.code === 'timeout')
      ) {
        throw await this.explainLoss(error);
      }
      throw error;
    }
  }

  private async explainLoss(error: SystemError): Promise<SystemError> {
    let state: ContainerState | undefined;
    try {
      state = await this.client.inspectContainer(this.containerId);
    } catch {
      return new SystemError(
        'engine_unavailable',
        `environment ${this.environmentId}: the Docker engine does not answer (${error.message}); the call's outcome is unknown, and the environment is re-attached once the engine is back`,
        { retryable: true, details: { environment_id: this.environmentId }, cause: error },
      );
    }
    // The channel socket closes the moment the agent dies, before the engine has seen its container
    // stop (the attached stdio ends only then): give the engine that moment.
    const settle = error.code === 'sandbox_agent_lost' && this.attached !== undefined;
    for (let waited = 0; settle && state?.running && waited < CHANNEL_LOSS_SETTLE_MS;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      waited += 100;
      state = await this.client.inspectContainer(this.containerId).catch(() => state);
    }
    let what: string;
    if (state === undefined) what = 'its container was removed';
    else if (state.oomKilled) what = 'its container ran out of memory and was killed';
    else if (!state.running)
      what = `its container stopped (${state.status}, exit code ${state.exitCode})`;
    else if (error.code === 'sandbox_agent_lost') {
      // The container runs but the stream broke (an engine restart with live-restore): connect
      // again for the next calls; this call's outcome is unknown.
      await this.reconnect();
      return new SystemError(
        'sandbox_agent_lost',
        `the stream to environment ${this.environmentId} broke during the request (${error.message}); it is re-attached for later calls, but this call's outcome is unknown`,
        { retryable: true, details: { environment_id: this.environmentId }, cause: error },
      );
    } else return error;
    this.agent.lose(what);
    return new SystemError(
      'environment_lost',
      `environment ${this.environmentId} is gone: ${what}`,
      {
        details: { environment_id: this.environmentId },
        cause: error,
      },
    );
  }

  /**
   * Attaches to the agent again when the stream is gone but the container still runs (the engine
   * restarted with live-restore, or the connection dropped). True when connected.
   */
  private async reconnect(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const state = await this.client.inspectContainer(this.containerId);
      if (!state?.running) return false;
      const { agent, attached } = await Sandbox.connect(this.client, this.logger, this.containerId);
      this.attached?.close();
      this.agent = agent;
      this.attached = attached;
      this.logger.warn(
        { environmentId: this.environmentId, containerId: this.containerId },
        're-attached to the sandbox agent',
      );
      return true;
    } catch (error) {
      this.logger.warn(
        { environmentId: this.environmentId, error: (error as Error).message },
        're-attaching to the sandbox agent failed',
      );
      return false;
    }
  }

  /** Closes the stream to the agent; the container keeps running (it can be re-attached). */
  async disconnect(): Promise<void> {
    this.closed = true;
    this.agent.close();
    this.attached?.close();
    // The proxy runs in this process: left listening, it would keep the process from exiting.
    await this.network?.release();
  }

  /** Removes the container and its volumes. Safe to call twice. */
  async destroy(): Promise<void> {
    this.closed = true;
    this.agent.close();
    this.attached?.close();
    await this.client.removeContainer(this.containerId);
    // A workspace on a disk of its own has no volume: removing one that is not there is a no-op.
    for (const role of VOLUME_ROLES) {
      await this.client.removeVolume(volumeName(this.environmentId, role));
    }
    if (this.diskFolder) await removeWorkspaceDiskAt(this.diskFolder);
    await this.network?.destroy();
    this.logger.info(
      { environmentId: this.environmentId, containerId: this.containerId },
      'environment removed',
    );
  }
}
