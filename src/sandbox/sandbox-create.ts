// Making a sandbox: its volumes or disk, its container and agent; on failure, clean-up then rethrow.
import type { ContainerRuntime } from './container-runtime.js';
import type { PlacedSource } from '../config/sources.js';
import type { Logger } from '../record/logger.js';
import { reachAgent, type AgentLinks } from './agent-channel.js';
import { AgentConnection } from './agent-connection.js';
import { ownershipLabels, type ControllerIdentity } from './labels.js';
import { sandboxContainerSpec } from './sandbox-container-spec.js';
import { SANDBOX_DEFAULTS, type SandboxOptions } from './sandbox-options.js';
import { AGENT_ROLES, VOLUME_ROLES, volumeName } from './sandbox-volumes.js';
import { removeWorkspaceDisk, workspaceDiskFor } from './workspace-disk.js';

/** A folder tree a copy helper mounts: a Docker volume, or a host folder (a workspace disk's mount). */
export type TreeSource = { volume: string } | { hostPath: string };

/** Where a new environment's trees are, once its volumes (or workspace disk) exist. */
export interface FillTarget {
  environmentId: string;
  /** Its /workspace: a volume, or the mount of its workspace disk. */
  workspace: TreeSource;
  /** Its gates' volume (/.agents). */
  agents: string;
}

/** A fill under way: `started` once the helper runs (or failed), `done` once it has copied. */
export interface FillRun {
  started: Promise<void>;
  done: Promise<void>;
}

/**
 * Fills one new environment's trees; called by sandbox creation once its volumes exist. Sandbox
 * creation makes its container once the helper has started (so the helper is not queued behind
 * N sandboxes on a busy engine) and hands the environment out once it is done.
 */
export type WorkspaceFill = (target: FillTarget) => FillRun;

/**
 * A network the sandbox joins instead of none: an environment's internal network and its way out
 * (src/network/environment-egress.ts). Once given to `Sandbox.create`, the sandbox owns it:
 * it is destroyed with the sandbox, or when creation fails.
 */
export interface SandboxNetwork {
  readonly networkName: string;
  /** Environment variables of the container: where the proxy is. Nothing secret. */
  readonly env: Record<string, string>;
  destroy(): Promise<void>;
  /**
   * The controller lets go of a network it leaves in place (a durable server stopping): what runs
   * in this process (the egress proxy) stops, so nothing of it keeps the process alive; the Docker
   * network and relay stay with the environment.
   */
  release(): Promise<void>;
}

export const AGENT_READY_TIMEOUT_MS = 30_000;

export interface SandboxCreateParams {
  client: ContainerRuntime;
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
  /**
   * Fills /workspace and /.agents from a snapshot or another environment once they exist, while
   * the container starts; the sandbox is handed out only once it is done (docs/environments.md, "Snapshots and forks").
   */
  fill?: WorkspaceFill;
}

/**
 * Makes the sandbox's resources and wraps them with `wrap`, then places its sources; on any failure
 * after the first resource exists, everything made so far is removed before the original error is
 * rethrown.
 */
export async function createSandbox<
  S extends { injectSources(sources: PlacedSource[]): Promise<void> },
>(
  params: SandboxCreateParams,
  wrap: (made: AgentLinks & { containerId: string; diskFolder?: string }) => S,
): Promise<S> {
  const { client, logger, controller, environmentId } = params;
  const options = { ...SANDBOX_DEFAULTS, ...params.options };
  const runtime = options.runtime ?? SANDBOX_DEFAULTS.runtime;
  const made: { volumes: string[]; containerId?: string; disk?: boolean } = { volumes: [] };
  let filling: Promise<void> | undefined;
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
    if (params.fill) {
      const run = params.fill({
        environmentId,
        workspace: disk
          ? { hostPath: disk.mountPoint }
          : { volume: volumeName(environmentId, 'workspace') },
        agents: volumeName(environmentId, 'agents'),
      });
      filling = run.done;
      // The helper first: on a busy engine it would otherwise start after every sandbox.
      await run.started;
    }
    const spec = sandboxContainerSpec({
      controller,
      environmentId,
      image: params.image,
      options,
      runtime,
      disk,
      network: params.network,
    });
    made.containerId = await client.createContainer(spec);
    const containerId = made.containerId;
    const stdio = await client.attach(containerId);
    const agent = new AgentConnection(stdio, logger, containerId);
    await client.startContainer(containerId);
    const hello = await agent.handshake(AGENT_READY_TIMEOUT_MS, params.image);
    const links = await reachAgent(client, logger, containerId, agent, hello.instance);
    await filling;
    const sandbox = wrap({ containerId, ...links, ...(disk ? { diskFolder: disk.folder } : {}) });
    await sandbox.injectSources(params.sources);
    logger.info({ environmentId, containerId }, 'environment ready');
    return sandbox;
  } catch (error) {
    logger.warn(
      { environmentId, error: (error as Error).message },
      'environment creation failed; removing what was made',
    );
    // A copy still filling the volumes holds them: it ends first, or they could not be removed.
    await filling?.catch(() => {});
    if (made.containerId) await client.removeContainer(made.containerId).catch(() => {});
    for (const volume of made.volumes) await client.removeVolume(volume).catch(() => {});
    if (made.disk && params.diskRoot)
      await removeWorkspaceDisk(params.diskRoot, environmentId).catch(() => {});
    await params.network?.destroy().catch(() => {});
    throw error;
  }
}
