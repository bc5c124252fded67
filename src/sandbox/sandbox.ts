import type { PlacedSource } from '../config/sources.js';
import { SystemError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { AgentConnection } from './agent-connection.js';
import type { ContainerClient, SandboxContainerSpec } from './container-client.js';
import { ownershipLabels, type ResourceRole } from './labels.js';
import {
  AGENT_CAPABILITIES,
  SANDBOX_DEFAULTS,
  SANDBOX_PATHS,
  type SandboxOptions,
} from './sandbox-options.js';
import { sourceArchive, TOOL_GID, TOOL_UID } from './source-archive.js';

/** The controller process that owns what it makes (labels), so orphans can be told apart. */
export interface ControllerIdentity {
  id: string;
  pid: number;
  /** The controller's state file, when it keeps one: environments listed there are not orphans. */
  stateFile?: string;
}

const AGENT_READY_TIMEOUT_MS = 30_000;

export function volumeName(environmentId: string, role: Exclude<ResourceRole, 'sandbox'>): string {
  return `hookbox-${environmentId}-${role}`;
}

/**
 * One environment's container, its three volumes and the stream to its sandbox agent.
 * Made by {@link Sandbox.create}; on any failure after the first resource exists, everything made
 * so far is removed before the original error is rethrown.
 */
export class Sandbox {
  private constructor(
    readonly environmentId: string,
    readonly containerId: string,
    private agent: AgentConnection,
    private readonly client: ContainerClient,
    private readonly logger: Logger,
  ) {}

  static async create(params: {
    client: ContainerClient;
    logger: Logger;
    controller: ControllerIdentity;
    environmentId: string;
    image: string;
    sources: PlacedSource[];
    options?: SandboxOptions;
  }): Promise<Sandbox> {
    const { client, logger, controller, environmentId } = params;
    const options = { ...SANDBOX_DEFAULTS, ...params.options };
    const made: { volumes: string[]; containerId?: string } = { volumes: [] };
    try {
      for (const role of ['workspace', 'agents', 'state'] as const) {
        const name = volumeName(environmentId, role);
        await client.createVolume(name, ownershipLabels(environmentId, role, controller));
        made.volumes.push(name);
      }
      const spec: SandboxContainerSpec = {
        name: `hookbox-${environmentId}`,
        image: params.image,
        labels: ownershipLabels(environmentId, 'sandbox', controller),
        mounts: [
          {
            volume: volumeName(environmentId, 'workspace'),
            target: SANDBOX_PATHS.workspace,
            readOnly: false,
          },
          {
            volume: volumeName(environmentId, 'agents'),
            target: SANDBOX_PATHS.agents,
            readOnly: true,
          },
          // The same gates, read-only, where a relative `.agents/...` from cwd /workspace points, so
          // tool code cannot shadow them with files of its own.
          {
            volume: volumeName(environmentId, 'agents'),
            target: SANDBOX_PATHS.agentsMirror,
            readOnly: true,
          },
          {
            volume: volumeName(environmentId, 'agents'),
            target: SANDBOX_PATHS.agentsWritable,
            readOnly: false,
          },
          {
            volume: volumeName(environmentId, 'state'),
            target: SANDBOX_PATHS.stateDir,
            readOnly: false,
          },
        ],
        // Docker leaves these two writable even with a read-only root (SPEC §2).
        readOnlyTmpfs: ['/dev/shm', '/dev/mqueue'],
        writableTmpfs: options.writableTmp
          ? [{ target: '/tmp', sizeMb: options.writableTmpMb }]
          : [],
        memoryMb: options.memoryMb,
        cpus: options.cpus,
        pidsLimit: options.pidsLimit,
        capabilities: AGENT_CAPABILITIES,
        network: 'none',
      };
      made.containerId = await client.createContainer(spec);
      const containerId = made.containerId;
      await Sandbox.inject(client, containerId, params.sources);
      const stdio = await client.attach(containerId);
      const agent = new AgentConnection(stdio, logger, containerId);
      await client.startContainer(containerId);
      await agent.request('ping', {}, AGENT_READY_TIMEOUT_MS);
      logger.info({ environmentId, containerId }, 'environment ready');
      return new Sandbox(environmentId, containerId, agent, client, logger);
    } catch (error) {
      logger.warn(
        { environmentId, error: (error as Error).message },
        'environment creation failed; removing what was made',
      );
      if (made.containerId) await client.removeContainer(made.containerId).catch(() => {});
      for (const volume of made.volumes) await client.removeVolume(volume).catch(() => {});
      throw error;
    }
  }

  /** Copies sources into the volumes: workspace files owned by the tool user, gates by root. */
  private static async inject(
    client: ContainerClient,
    containerId: string,
    sources: PlacedSource[],
  ): Promise<void> {
    const workspace = sources.filter((source) => source.area === 'workspace');
    const agents = sources.filter((source) => source.area === 'agents');
    if (workspace.length > 0) {
      await client.putArchive(
        containerId,
        SANDBOX_PATHS.workspace,
        await sourceArchive(workspace, { uid: TOOL_UID, gid: TOOL_GID }),
      );
    }
    if (agents.length > 0) {
      await client.putArchive(
        containerId,
        SANDBOX_PATHS.agentsWritable,
        await sourceArchive(agents, { uid: 0, gid: 0 }),
      );
    }
  }

  /**
   * Connects to the sandbox agent of a running container again (after a controller restart, or a
   * broken stream): the agent serves a new connection on the container's stdio.
   */
  static async reattach(params: {
    client: ContainerClient;
    logger: Logger;
    environmentId: string;
    containerId: string;
  }): Promise<Sandbox> {
    const agent = await Sandbox.connect(params.client, params.logger, params.containerId);
    return new Sandbox(
      params.environmentId,
      params.containerId,
      agent,
      params.client,
      params.logger,
    );
  }

  private static async connect(
    client: ContainerClient,
    logger: Logger,
    containerId: string,
  ): Promise<AgentConnection> {
    const agent = new AgentConnection(await client.attach(containerId), logger, containerId);
    try {
      await agent.request('ping', {}, AGENT_READY_TIMEOUT_MS);
    } catch (error) {
      agent.close();
      throw error;
    }
    return agent;
  }

  /** Places sources in a running environment (a pooled one at hand-out): workspace files and gates. */
  async injectSources(sources: PlacedSource[]): Promise<void> {
    await Sandbox.inject(this.client, this.containerId, sources);
  }

  /** Adds workspace sources to a running environment. */
  async addWorkspaceSources(sources: PlacedSource[]): Promise<void> {
    await Sandbox.inject(
      this.client,
      this.containerId,
      sources.filter((source) => source.area === 'workspace'),
    );
  }

  /**
   * Replaces everything under /.agents. The caller holds the environment's lock, so no call runs
   * while the files change.
   */
  async replaceAgents(sources: PlacedSource[]): Promise<void> {
    await this.agent.request('reset_agents', {}, 30_000);
    await Sandbox.inject(
      this.client,
      this.containerId,
      sources.filter((source) => source.area === 'agents'),
    );
  }

  /** Sends one request to the sandbox agent; a lost agent becomes an error that says what happened. */
  async request<T>(op: string, body: Record<string, unknown>, answerTimeoutMs: number): Promise<T> {
    try {
      return await this.agent.request<T>(op, body, answerTimeoutMs);
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
    const state = await this.client.inspectContainer(this.containerId).catch(() => undefined);
    let what: string;
    if (state === undefined) what = 'its container was removed';
    else if (state.oomKilled) what = 'its container ran out of memory and was killed';
    else if (!state.running)
      what = `its container stopped (${state.status}, exit code ${state.exitCode})`;
    else return error;
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

  /** Removes the container and its volumes. Safe to call twice. */
  async destroy(): Promise<void> {
    this.agent.close();
    await this.client.removeContainer(this.containerId);
    for (const role of ['workspace', 'agents', 'state'] as const) {
      await this.client.removeVolume(volumeName(this.environmentId, role));
    }
    this.logger.info(
      { environmentId: this.environmentId, containerId: this.containerId },
      'environment removed',
    );
  }
}
