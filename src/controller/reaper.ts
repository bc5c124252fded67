import { removeStaleWorkspaceDisks, removeWorkspaceDiskAt } from '../sandbox/workspace-disk.js';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { removeStaleSocketFolders } from '../network/socket-folders.js';
import type { ContainerClient } from '../sandbox/container-client.js';
import {
  LABEL_CONTROLLER_PID,
  LABEL_CONTROLLER_PID_NAMESPACE,
  LABEL_ENVIRONMENT,
  LABEL_MANAGED,
  LABEL_STATE_FILE,
  LABEL_WORKSPACE_DISK,
  pidNamespace,
} from '../sandbox/labels.js';

/** Whether a process with this pid is alive on this host. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the controller that made a resource is known to be gone: its pid is dead in our own pid
 * namespace. A resource made from another pid namespace (a controller in a container, or the host
 * seen from one) cannot be judged by pid, and is not taken for an orphan. `ownDatabase` is the
 * location of the database this controller shares (--state-url), whose listing the caller checked.
 */
export function ownerGone(labels: Record<string, string>, ownDatabase?: string): boolean {
  const namespace = labels[LABEL_CONTROLLER_PID_NAMESPACE];
  if (namespace !== undefined && namespace !== pidNamespace()) return false;
  if (processAlive(Number(labels[LABEL_CONTROLLER_PID]))) return false;
  return !keptByStateFile(labels, ownDatabase);
}

/** Whether a state location is a database (`postgres://…`, redacted) rather than a file. */
export function isDatabaseLocation(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
}

/**
 * Whether the resource's environment is still listed in the state of the controller that made it:
 * a durable controller that died is coming back for it (docs/operations.md, Orphans). A state file
 * is read here; a database (several replicas) only its own replicas can read, so to any other
 * controller or `hookbox gc` its resources are never orphans (`hookbox gc --all` removes them).
 */
export function keptByStateFile(labels: Record<string, string>, ownDatabase?: string): boolean {
  const file = labels[LABEL_STATE_FILE];
  const environmentId = labels[LABEL_ENVIRONMENT];
  if (!file || !environmentId) return false;
  if (isDatabaseLocation(file)) return file !== ownDatabase;
  if (!existsSync(file)) return false;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return db.prepare('SELECT 1 FROM environments WHERE id = ?').get(environmentId) !== undefined;
    } finally {
      db.close();
    }
  } catch {
    // Unreadable: keep the resource; `hookbox gc --all` removes it if it truly is garbage.
    return true;
  }
}

/** Only what belongs to an environment: the label filter also requires an environment label. */
const ENVIRONMENT_RESOURCES = [`${LABEL_MANAGED}=true`, LABEL_ENVIRONMENT];

export interface ReapResult {
  containers: { name: string; environmentId: string }[];
  volumes: string[];
  /** Environments' internal networks (made for a `network.allowlist`). */
  networks: string[];
}

/**
 * Removes containers, volumes and networks that carry hookbox labels but belong to no known
 * environment. `isOrphan` decides from a resource's labels; by default a resource is an orphan when
 * the controller process that made it is gone.
 */
export async function reapOrphans(
  client: ContainerClient,
  isOrphan: (labels: Record<string, string>) => boolean = ownerGone,
  /** Hears what is being looked at or removed, for `hookbox gc`'s progress line. */
  onProgress?: (message: string) => void,
): Promise<ReapResult> {
  const removed: ReapResult = { containers: [], volumes: [], networks: [] };
  onProgress?.('listing containers');
  const containers = await client.listContainers(ENVIRONMENT_RESOURCES);
  for (const [index, container] of containers.entries()) {
    if (!isOrphan(container.labels)) continue;
    onProgress?.(`containers ${index + 1}/${containers.length}: removing ${container.name}`);
    // One resource that cannot go now (busy, being removed by its own controller) is left for the
    // next round; it never stops the rest, nor the controller start that reaps.
    if (!(await attempt(() => client.removeContainer(container.id), onProgress))) continue;
    // Its workspace disk, wherever the controller that made it kept it.
    const disk = container.labels[LABEL_WORKSPACE_DISK];
    if (disk) await removeWorkspaceDiskAt(disk).catch(() => {});
    removed.containers.push({
      name: container.name,
      environmentId: container.labels[LABEL_ENVIRONMENT] ?? '?',
    });
  }
  const live = await environmentsWithContainers(client);
  onProgress?.('listing volumes');
  const volumes = await client.listVolumes(ENVIRONMENT_RESOURCES);
  for (const [index, volume] of volumes.entries()) {
    if (live.has(volume.labels[LABEL_ENVIRONMENT] ?? '') || !isOrphan(volume.labels)) continue;
    onProgress?.(`volumes ${index + 1}/${volumes.length}: removing ${volume.name}`);
    if (!(await attempt(() => client.removeVolume(volume.name), onProgress))) continue;
    removed.volumes.push(volume.name);
  }
  onProgress?.('listing networks');
  for (const network of await client.listNetworks(ENVIRONMENT_RESOURCES)) {
    if (live.has(network.labels[LABEL_ENVIRONMENT] ?? '') || !isOrphan(network.labels)) continue;
    if (!(await attempt(() => client.removeNetwork(network.id), onProgress))) continue;
    removed.networks.push(network.name);
  }
  return removed;
}

/** Runs one removal; false (and a word to `onProgress`) when the engine refused it. */
async function attempt(
  remove: () => Promise<void>,
  onProgress?: (message: string) => void,
): Promise<boolean> {
  try {
    await remove();
    return true;
  } catch (error) {
    onProgress?.(`left for later: ${(error as Error).message}`);
    return false;
  }
}

/** The environments that still have a container (running or not). */
async function environmentsWithContainers(client: ContainerClient): Promise<Set<string>> {
  const containers = await client.listContainers(ENVIRONMENT_RESOURCES);
  return new Set(containers.flatMap((container) => container.labels[LABEL_ENVIRONMENT] ?? []));
}

/**
 * Removes the egress socket folders under `socketRoot` of environments that no container belongs to
 * any more (a crashed controller leaves them); returns their environment ids.
 */
export async function reapSocketFolders(
  client: ContainerClient,
  socketRoot: string,
): Promise<string[]> {
  return removeStaleSocketFolders(socketRoot, await environmentsWithContainers(client));
}

/**
 * Unmounts and deletes the workspace disks under `diskRoot` of environments that no container
 * belongs to any more (src/sandbox/workspace-disk.ts); returns their environment ids.
 */
export async function reapWorkspaceDisks(
  client: ContainerClient,
  diskRoot: string,
): Promise<string[]> {
  return removeStaleWorkspaceDisks(
    diskRoot,
    await environmentsWithContainers(client),
    processAlive,
  );
}

/** Environments that still have a container or a volume on the engine (their audit logs stay). */
export async function liveEnvironmentIds(client: ContainerClient): Promise<Set<string>> {
  const [containers, volumes] = await Promise.all([
    client.listContainers(ENVIRONMENT_RESOURCES),
    client.listVolumes(ENVIRONMENT_RESOURCES),
  ]);
  return new Set(
    [...containers, ...volumes]
      .map((resource) => resource.labels[LABEL_ENVIRONMENT])
      .filter((id): id is string => id !== undefined),
  );
}
