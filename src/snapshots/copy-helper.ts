// The short-lived, hardened helper container that copies workspaces for snapshots and forks.
import { randomBytes } from 'node:crypto';
import { SystemError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import type { ContainerRuntime, SandboxContainerSpec } from '../sandbox/container-runtime.js';
import { ownershipLabels, type ControllerIdentity } from '../sandbox/labels.js';
import type { TreeSource } from '../sandbox/sandbox-create.js';

export interface HelperMount {
  source: TreeSource;
  /** Where the helper sees it. */
  target: string;
  readOnly: boolean;
}

/** What one helper run does: mount these, make these folders, then copy each `from` into its `to`. */
export interface CopyPlan {
  mounts: HelperMount[];
  /** Folders made (`mkdir -p`) before copying. */
  folders?: string[];
  copies: { from: string; to: string }[];
}

/**
 * The helper's limits (docs/environments.md, "Snapshots and forks"). `cp -a` as root needs CHOWN
 * (owners kept), DAC_OVERRIDE (reading files the tool user made private), FOWNER (modes and times
 * of others' files) and FSETID (setgid bits kept); nothing else.
 */
export const COPY_HELPER_LIMITS = {
  memoryMb: 256,
  cpus: 2,
  pidsLimit: 64,
  capabilities: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID'],
} as const;

/** The helper's path names are hookbox's own (never a caller's), so plain single quotes do. */
function quoted(path: string): string {
  if (!/^\/[A-Za-z0-9/_.-]*$/.test(path)) throw new Error(`copy helper: bad path ${path}`);
  return `'${path}'`;
}

/**
 * The helper's shell script: the folders, then every copy at once (`cp -a`: owners, modes, times
 * and symlinks kept; a symlink is copied as a link, never followed), failing if any copy fails.
 */
export function copyScript(plan: CopyPlan): string {
  const lines = ['set -e'];
  if (plan.folders && plan.folders.length > 0)
    lines.push(`mkdir -p ${plan.folders.map(quoted).join(' ')}`);
  lines.push("pids=''");
  for (const copy of plan.copies)
    lines.push(`cp -a -- ${quoted(`${copy.from}/.`)} ${quoted(`${copy.to}/`)} & pids="$pids $!"`);
  lines.push('for pid in $pids; do wait "$pid" || exit 1; done');
  return lines.join('\n');
}

/** The helper container: no network, read-only root, the few capabilities `cp -a` needs, labelled. */
export function copyHelperSpec(
  plan: CopyPlan,
  params: { image: string; environmentId: string; controller: ControllerIdentity },
): SandboxContainerSpec {
  return {
    name: `hookbox-copy-${params.environmentId}-${randomBytes(4).toString('hex')}`,
    image: params.image,
    labels: ownershipLabels(params.environmentId, 'copy', params.controller),
    mounts: plan.mounts.flatMap((mount) =>
      'volume' in mount.source
        ? [{ volume: mount.source.volume, target: mount.target, readOnly: mount.readOnly }]
        : [],
    ),
    bindMounts: plan.mounts.flatMap((mount) =>
      'hostPath' in mount.source
        ? [{ source: mount.source.hostPath, target: mount.target, readOnly: mount.readOnly }]
        : [],
    ),
    readOnlyTmpfs: ['/dev/shm', '/dev/mqueue'],
    writableTmpfs: [],
    memoryMb: COPY_HELPER_LIMITS.memoryMb,
    cpus: COPY_HELPER_LIMITS.cpus,
    pidsLimit: COPY_HELPER_LIMITS.pidsLimit,
    capabilities: [...COPY_HELPER_LIMITS.capabilities],
    network: 'none',
    user: '0:0',
    entrypoint: ['/bin/sh', '-c', copyScript(plan)],
  };
}

export interface CopyHelperHost {
  client: ContainerRuntime;
  logger: Logger;
  controller: ControllerIdentity;
  /** The sandbox image (it has `sh` and `cp`). */
  image: string;
}

/** The refusal of an engine that cannot run the helper (the Kubernetes backend). */
export function snapshotsUnsupported(): UserError {
  return new UserError(
    'unsupported',
    'snapshots and forks need the Docker engine (the copy helper runs as a container there); this backend does not have them (docs/environments.md, "Snapshots and forks")',
    { details: { field: 'engine' } },
  );
}

/**
 * Runs one helper to its end and removes it; a copy that fails is a SystemError with what `cp`
 * said. `environmentId` labels the helper (so reaping finds it if this process dies meanwhile).
 */
export async function runCopyHelper(
  host: CopyHelperHost,
  environmentId: string,
  plan: CopyPlan,
  onStarted?: () => void,
): Promise<void> {
  const { client, logger } = host;
  if (!client.waitContainer) throw snapshotsUnsupported();
  const started = performance.now();
  const spec = copyHelperSpec(plan, {
    image: host.image,
    environmentId,
    controller: host.controller,
  });
  const containerId = await client.createContainer(spec);
  try {
    const stdio = await client.attach(containerId);
    const said: Buffer[] = [];
    stdio.stderr.on('data', (chunk: Buffer) => {
      if (said.length < 64) said.push(chunk);
    });
    stdio.stdout.resume();
    await client.startContainer(containerId);
    onStarted?.();
    const exitCode = await client.waitContainer(containerId);
    stdio.close();
    if (exitCode !== 0) {
      const output = Buffer.concat(said).toString('utf8').slice(0, 2000).trim();
      throw new SystemError(
        'sandbox_failed',
        `copying the workspace failed (helper exit ${exitCode})${output ? `: ${output}` : ''}`,
        { details: { containerId, exitCode } },
      );
    }
    logger.info(
      {
        environmentId,
        containerId,
        copies: plan.copies.length,
        durationMs: Math.round(performance.now() - started),
      },
      'copy helper done',
    );
  } finally {
    await client
      .removeContainer(containerId)
      .catch((error: unknown) =>
        logger.warn(
          { environmentId, containerId, error: (error as Error).message },
          'removing the copy helper failed; reaping removes it later',
        ),
      );
  }
}
