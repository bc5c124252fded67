import type { PlacedSource } from '../config/sources.js';
import { SystemError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { AgentConnection, type AgentEvent } from './agent-connection.js';
import type { AgentAnswerOf, AgentOp, AgentRequestOf } from './protocol/index.js';
import type { ContainerClient, SandboxContainerSpec } from './container-client.js';
import {
  LABEL_ENVIRONMENT,
  LABEL_ROLE,
  LABEL_WORKSPACE_DISK,
  ownershipLabels,
  type ResourceRole,
} from './labels.js';
import { removeWorkspaceDisk, removeWorkspaceDiskAt, workspaceDiskFor } from './workspace-disk.js';
import {
  AGENT_CAPABILITIES,
  IPC_SYSCTLS,
  SANDBOX_DEFAULTS,
  SANDBOX_PATHS,
  type SandboxOptions,
} from './sandbox-options.js';

/** The controller process that owns what it makes (labels), so orphans can be told apart. */
export interface ControllerIdentity {
  id: string;
  pid: number;
  /** The controller's state file, when it keeps one: environments listed there are not orphans. */
  stateFile?: string;
}

/**
 * A network the sandbox joins instead of none: an environment's internal network and its way out
 * (src/network/environment-egress.ts). Once given to {@link Sandbox.create}, the sandbox owns it:
 * it is destroyed with the sandbox, or when creation fails.
 */
export interface SandboxNetwork {
  readonly networkName: string;
  /** Environment variables of the container: where the proxy is. Nothing secret. */
  readonly env: Record<string, string>;
  destroy(): Promise<void>;
}

const AGENT_READY_TIMEOUT_MS = 30_000;

/**
 * Sources as the agent's stream carries them: contents base64-encoded, so their size on the stream
 * never grows with JSON escaping (a file of control characters would grow sixfold). Content that is
 * not well-formed UTF-16 (a lone surrogate) has no UTF-8 form: refused, never replaced.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function wireFiles(sources: PlacedSource[]) {
  return sources.map((source) => {
    // Binary sources are base64 already and go byte for byte (docs/operations.md, Sources).
    if (source.encoding === 'base64')
      return {
        area: source.area,
        path: source.path,
        content_b64: source.content,
        executable: source.executable,
      };
    if (LONE_SURROGATE.test(source.content)) {
      throw new UserError(
        'invalid_sources',
        `${source.absolutePath}: content holds a lone surrogate, which UTF-8 cannot encode`,
        { details: { field: source.absolutePath } },
      );
    }
    return {
      area: source.area,
      path: source.path,
      content_b64: Buffer.from(source.content, 'utf8').toString('base64'),
      executable: source.executable,
    };
  });
}

/** The volumes of an environment; with a workspace disk, only the last two. */
const VOLUME_ROLES = ['workspace', 'agents', 'state'] as const;
const AGENT_ROLES = ['agents', 'state'] as const;

export function volumeName(environmentId: string, role: Exclude<ResourceRole, 'sandbox'>): string {
  return `hookbox-${environmentId}-${role}`;
}

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
    private readonly client: ContainerClient,
    private readonly logger: Logger,
    /** The network it joined, when the environment has an allowlist. */
    readonly network?: SandboxNetwork,
    /** The folder of its workspace disk (src/sandbox/workspace-disk.ts), when it has one. */
    private readonly diskFolder?: string,
  ) {}

  static async create(params: {
    client: ContainerClient;
    logger: Logger;
    controller: ControllerIdentity;
    environmentId: string;
    image: string;
    sources: PlacedSource[];
    options?: SandboxOptions;
    /** Join this network instead of none (and own it from now on). */
    network?: SandboxNetwork;
    /** Where workspace disks are made (`sandbox.diskMb`); without it, /workspace is a volume. */
    diskRoot?: string;
  }): Promise<Sandbox> {
    const { client, logger, controller, environmentId } = params;
    const options = { ...SANDBOX_DEFAULTS, ...params.options };
    const runtime = options.runtime ?? SANDBOX_DEFAULTS.runtime;
    const made: { volumes: string[]; containerId?: string; disk?: boolean } = { volumes: [] };
    try {
      const disk = await workspaceDiskFor(params.diskRoot, environmentId, options.diskMb, logger);
      made.disk = disk !== undefined;
      // With a disk, /workspace is a bind mount of its filesystem, not a Docker volume: a volume
      // with mount options keeps a stale "active mounts" count across an engine restart with
      // live-restore and then can never be removed (docs/security.md, "Workspace disk").
      for (const role of disk ? AGENT_ROLES : VOLUME_ROLES) {
        const name = volumeName(environmentId, role);
        await client.createVolume(name, ownershipLabels(environmentId, role, controller));
        made.volumes.push(name);
      }
      const spec: SandboxContainerSpec = {
        name: `hookbox-${environmentId}`,
        image: params.image,
        labels: {
          ...ownershipLabels(environmentId, 'sandbox', controller),
          ...(disk ? { [LABEL_WORKSPACE_DISK]: disk.folder } : {}),
        },
        mounts: [
          ...(disk
            ? []
            : [
                {
                  volume: volumeName(environmentId, 'workspace'),
                  target: SANDBOX_PATHS.workspace,
                  readOnly: false,
                },
              ]),
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
        ...(disk
          ? {
              bindMounts: [
                { source: disk.mountPoint, target: SANDBOX_PATHS.workspace, readOnly: false },
              ],
            }
          : {}),
        // Docker leaves these two writable even with a read-only root (docs/contract.md §2). gVisor also mounts
        // a writable tmpfs of its own at /tmp unless something is mounted there (docs/gvisor.md).
        readOnlyTmpfs: [
          '/dev/shm',
          '/dev/mqueue',
          ...(runtime !== 'runc' && !options.writableTmp ? ['/tmp'] : []),
        ],
        writableTmpfs: options.writableTmp
          ? [{ target: '/tmp', sizeMb: options.writableTmpMb }]
          : [],
        memoryMb: options.memoryMb,
        cpus: options.cpus,
        pidsLimit: options.pidsLimit,
        capabilities: AGENT_CAPABILITIES,
        runtime,
        network: params.network?.networkName ?? 'none',
        sysctls: {
          ...IPC_SYSCTLS,
          // The internal network is IPv4 only; no link-local IPv6 path to the host's bridge.
          ...(params.network ? { 'net.ipv6.conf.all.disable_ipv6': '1' } : {}),
        },
        ...(params.network
          ? {
              env: Object.entries(params.network.env).map(([name, value]) => `${name}=${value}`),
            }
          : {}),
      };
      made.containerId = await client.createContainer(spec);
      const containerId = made.containerId;
      const stdio = await client.attach(containerId);
      const agent = new AgentConnection(stdio, logger, containerId);
      await client.startContainer(containerId);
      await agent.handshake(AGENT_READY_TIMEOUT_MS, params.image);
      const sandbox = new Sandbox(
        environmentId,
        containerId,
        agent,
        client,
        logger,
        params.network,
        disk?.folder,
      );
      await sandbox.injectSources(params.sources);
      logger.info({ environmentId, containerId }, 'environment ready');
      return sandbox;
    } catch (error) {
      logger.warn(
        { environmentId, error: (error as Error).message },
        'environment creation failed; removing what was made',
      );
      if (made.containerId) await client.removeContainer(made.containerId).catch(() => {});
      for (const volume of made.volumes) await client.removeVolume(volume).catch(() => {});
      if (made.disk && params.diskRoot)
        await removeWorkspaceDisk(params.diskRoot, environmentId).catch(() => {});
      await params.network?.destroy().catch(() => {});
      throw error;
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
    // Its disk, as its label names it: the controller that made it may have kept disks elsewhere.
    const [container] = await params.client.listContainers([
      `${LABEL_ENVIRONMENT}=${params.environmentId}`,
      `${LABEL_ROLE}=sandbox`,
    ]);
    return new Sandbox(
      params.environmentId,
      params.containerId,
      agent,
      params.client,
      params.logger,
      undefined,
      container?.labels[LABEL_WORKSPACE_DISK],
    );
  }

  private static async connect(
    client: ContainerClient,
    logger: Logger,
    containerId: string,
  ): Promise<AgentConnection> {
    const agent = new AgentConnection(await client.attach(containerId), logger, containerId);
    try {
      await agent.handshake(AGENT_READY_TIMEOUT_MS);
    } catch (error) {
      agent.close();
      throw error;
    }
    return agent;
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
    let state;
    try {
      state = await this.client.inspectContainer(this.containerId);
    } catch {
      return new SystemError(
        'engine_unavailable',
        `environment ${this.environmentId}: the Docker engine does not answer (${error.message}); the call's outcome is unknown, and the environment is re-attached once the engine is back`,
        { retryable: true, details: { environment_id: this.environmentId }, cause: error },
      );
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
      this.agent = await Sandbox.connect(this.client, this.logger, this.containerId);
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
  disconnect(): void {
    this.closed = true;
    this.agent.close();
  }

  /** Removes the container and its volumes. Safe to call twice. */
  async destroy(): Promise<void> {
    this.closed = true;
    this.agent.close();
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
