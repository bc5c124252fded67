import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { SystemError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';

const run = promisify(execFile);

/**
 * A workspace of bounded size: an ext4 filesystem in a sparse file under the controller's home,
 * loop-mounted on the host and bind-mounted at /workspace (docs/security.md, "Workspace disk").
 * Writes past its size fail with ENOSPC inside the sandbox; the host's disk holds at most the
 * file's size. Made and removed by the controller, which must be root on the engine's host.
 */
export interface WorkspaceDisk {
  /** The disk's folder on the host (the image, the mount point, the owner file). */
  readonly folder: string;
  /** The mounted filesystem's root on the host: the bind mount's source. */
  readonly mountPoint: string;
}

/** Owner of the filesystem's root: root, with the tool user's group (README, Security model). */
const ROOT_OWNER = '0:1000';

/**
 * `$HOOKBOX_HOME/disks`: one folder per environment, holding `workspace.ext4`, `mnt/` and `owner`
 * (the pid of the controller that made it, so a dead controller's disks are reaped at once).
 */
export function diskRootOf(home: string): string {
  return join(home, 'disks');
}

/**
 * Bytes in use on the workspace disks under `diskRoot`, by environment id (a workspace on a disk of
 * its own is a bind mount whose use the engine does not see).
 */
export function workspaceDiskUsage(diskRoot: string): Map<string, number> {
  const used = new Map<string, number>();
  let ids: string[];
  try {
    ids = readdirSync(diskRoot);
  } catch {
    return used;
  }
  for (const id of ids) {
    try {
      const stats = statfsSync(paths(diskRoot, id).mountPoint);
      used.set(id, (stats.blocks - stats.bfree) * stats.bsize);
    } catch {
      // Not mounted (being made or removed): nothing to count.
    }
  }
  return used;
}

function paths(diskRoot: string, environmentId: string) {
  const folder = join(diskRoot, environmentId);
  return { folder, image: join(folder, 'workspace.ext4'), mountPoint: join(folder, 'mnt') };
}

let unavailable: string | undefined;

/**
 * Why workspace disks cannot be made here (undefined: they can): not root, or the engine is on
 * another host (DOCKER_HOST names one), whose paths a bind mount from here would not reach.
 */
export function workspaceDiskUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the controller does not run as root';
  const dockerHost = process.env.DOCKER_HOST;
  if (dockerHost && !dockerHost.startsWith('unix://'))
    return `the Docker engine is remote (DOCKER_HOST=${dockerHost})`;
  return unavailable;
}

/**
 * Makes and mounts the disk of one environment. Costs a sparse file, `mkfs.ext4` (no journal:
 * the workspace lives as long as its environment) and a loop mount, ~0.1 s (docs/security.md, "Workspace disk").
 */
export async function createWorkspaceDisk(
  diskRoot: string,
  environmentId: string,
  sizeMb: number,
  logger: Logger,
): Promise<WorkspaceDisk> {
  const { folder, image, mountPoint } = paths(diskRoot, environmentId);
  mkdirSync(mountPoint, { recursive: true, mode: 0o700 });
  writeFileSync(join(folder, 'owner'), `${process.pid}\n`);
  try {
    await run('mkfs.ext4', [
      '-q',
      '-F',
      // No blocks reserved for root: the agent (root) writes workspace files as the tool user.
      '-m',
      '0',
      '-O',
      '^has_journal',
      '-E',
      `root_owner=${ROOT_OWNER},lazy_itable_init=1,nodiscard`,
      image,
      `${sizeMb}M`,
    ]);
    // `loop` sets autoclear: unmounting frees the loop device.
    await run('mount', ['-o', 'loop,nosuid,nodev', image, mountPoint]);
    try {
      // The tool group writes in it; tool code cannot change its mode (it is root's).
      await run('chmod', ['0775', mountPoint]);
      rmSync(join(mountPoint, 'lost+found'), { recursive: true, force: true });
    } catch (error) {
      await run('umount', [mountPoint]).catch(() => {});
      throw error;
    }
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    const message = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    if (/permission denied|not permitted|ENOENT|not found/i.test(message)) {
      // Remembered: this controller cannot make loop mounts (no mkfs.ext4, or no right to mount).
      unavailable = `loop mounts cannot be made here (${message})`;
    }
    logger.warn({ environmentId, error: message }, 'making the workspace disk failed');
    throw new SystemError(
      'sandbox_failed',
      `environment ${environmentId}: could not make its ${sizeMb} MiB workspace disk: ${message}`,
      { cause: error, details: { field: 'sandbox.diskMb' } },
    );
  }
  return { folder, mountPoint };
}

/** Unmounts and deletes the disk of one environment, if it has one. Safe to call twice. */
export async function removeWorkspaceDisk(diskRoot: string, environmentId: string): Promise<void> {
  await removeWorkspaceDiskAt(paths(diskRoot, environmentId).folder);
}

/** Unmounts and deletes the disk in `folder` (as the sandbox's label names it). Safe to call twice. */
export async function removeWorkspaceDiskAt(folder: string): Promise<void> {
  // Only an environment's disk folder, whatever a label says.
  if (!basename(folder).startsWith('env_')) return;
  if (!existsSync(join(folder, 'workspace.ext4')) && !existsSync(join(folder, 'mnt'))) return;
  // Lazy: a container that is being removed may still hold it for a moment.
  await run('umount', ['-l', join(folder, 'mnt')]).catch(() => {});
  rmSync(folder, { recursive: true, force: true });
}

/**
 * Removes the disks under `diskRoot` of environments that have no container any more (a controller
 * that crashed leaves them); returns their environment ids. A disk younger than `minAgeMs` is left
 * while the controller that made it lives: its container may be on its way.
 */
export async function removeStaleWorkspaceDisks(
  diskRoot: string,
  liveEnvironmentIds: ReadonlySet<string>,
  processAlive: (pid: number) => boolean,
  minAgeMs = 60_000,
  now = Date.now(),
): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(diskRoot);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith('env_') || liveEnvironmentIds.has(name)) continue;
    const folder = join(diskRoot, name);
    try {
      const young = now - statSync(folder).mtimeMs < minAgeMs;
      if (young && processAlive(Number(readFileSync(join(folder, 'owner'), 'utf8').trim())))
        continue;
    } catch {
      // no owner file yet: being made
      continue;
    }
    await removeWorkspaceDisk(diskRoot, name);
    removed.push(name);
  }
  return removed;
}

let unlimitedWarned = false;

/**
 * The environment's workspace disk of `diskMb` MiB, or undefined for a plain volume: when no limit
 * is asked for (0), or this controller cannot make loop mounts (not root on the engine's host, e.g.
 * the controller image), which it says once (docs/security.md, "Workspace disk").
 */
export async function workspaceDiskFor(
  diskRoot: string | undefined,
  environmentId: string,
  diskMb: number,
  logger: Logger,
): Promise<WorkspaceDisk | undefined> {
  if (diskRoot === undefined || diskMb === 0) return undefined;
  if (workspaceDiskUnavailable() === undefined) {
    try {
      return await createWorkspaceDisk(diskRoot, environmentId, diskMb, logger);
    } catch (error) {
      // The first try is how a controller finds out that it may not mount (no mkfs.ext4, or no
      // right to mount); any other failure fails the creation.
      if (workspaceDiskUnavailable() === undefined) throw error;
    }
  }
  if (!unlimitedWarned)
    logger.warn(
      { reason: workspaceDiskUnavailable() },
      'workspaces are not size-limited: sandbox.diskMb needs loop mounts',
    );
  unlimitedWarned = true;
  return undefined;
}
