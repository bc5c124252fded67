// The container spec of an environment's sandbox: its mounts, limits, runtime and network.
import type { SandboxContainerSpec } from './container-runtime.js';
import { LABEL_WORKSPACE_DISK, ownershipLabels } from './labels.js';
import {
  AGENT_CAPABILITIES,
  IPC_SYSCTLS,
  SANDBOX_PATHS,
  type SandboxOptions,
} from './sandbox-options.js';
import { volumeName } from './sandbox-volumes.js';
import type { ControllerIdentity } from './labels.js';
import type { WorkspaceDisk } from './workspace-disk.js';

export function sandboxContainerSpec(params: {
  controller: ControllerIdentity;
  environmentId: string;
  image: string;
  /** The sandbox options, defaults filled in. */
  options: Required<
    Pick<SandboxOptions, 'writableTmp' | 'writableTmpMb' | 'memoryMb' | 'cpus' | 'pidsLimit'>
  >;
  runtime: string;
  disk: WorkspaceDisk | undefined;
  /** The network to join (a SandboxNetwork's name and environment, sandbox-create.ts), or none. */
  network: { readonly networkName: string; readonly env: Record<string, string> } | undefined;
}): SandboxContainerSpec {
  const { controller, environmentId, options, runtime, disk } = params;
  return {
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
    writableTmpfs: options.writableTmp ? [{ target: '/tmp', sizeMb: options.writableTmpMb }] : [],
    // The agent's channel socket (docs/agent-protocol.md, "The stream"), inside /opt/hookbox (0700).
    rootOnlyTmpfs: [{ target: SANDBOX_PATHS.agentChannel, sizeMb: 1 }],
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
}
