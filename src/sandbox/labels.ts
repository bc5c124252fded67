import { readlinkSync } from 'node:fs';

/**
 * Ownership labels on every container, volume and network hookbox makes, so that orphans can be found
 * and removed (`hookbox gc`). All label names live here.
 */
export const LABEL_MANAGED = 'dev.hookbox.managed';
export const LABEL_ENVIRONMENT = 'dev.hookbox.environment';
/** Which controller process made the resource: a random id per controller. */
export const LABEL_CONTROLLER = 'dev.hookbox.controller';
/** The pid of that controller, so `hookbox gc` can tell a live owner from a dead one. */
export const LABEL_CONTROLLER_PID = 'dev.hookbox.controller-pid';
/**
 * The pid namespace that pid belongs to (`pid:[4026531836]`): a controller running in a container
 * has pids of its own, which mean nothing on the host, and the other way round.
 */
export const LABEL_CONTROLLER_PID_NAMESPACE = 'dev.hookbox.controller-pidns';
/**
 * The state file of the controller that made the resource, when it keeps one: while that file lists
 * the environment, it waits there for its controller to come back and is no orphan
 * (docs/operations.md, State).
 */
export const LABEL_STATE_FILE = 'dev.hookbox.state-file';
/**
 * `sandbox` or `egress` (the egress relay) for containers; `workspace`, `agents` or `state` for
 * volumes; `network` for an environment's internal network.
 */
export const LABEL_ROLE = 'dev.hookbox.role';
/** Sandbox images carry the hash of the inputs they were built from. */
export const LABEL_IMAGE_INPUTS = 'dev.hookbox.image-inputs';
/**
 * Images hookbox builds say so with this label — not with {@link LABEL_MANAGED}: a container
 * inherits its image's labels, and `managed` marks the resources that orphan reaping may remove.
 */
export const LABEL_IMAGE = 'dev.hookbox.image';

/**
 * On a sandbox container whose /workspace is a disk of its own: the disk's folder on the host, so
 * whoever removes the container (its controller, another one, `hookbox gc`) removes the disk too.
 */
export const LABEL_WORKSPACE_DISK = 'dev.hookbox.workspace-disk';

/**
 * On a snapshot's volume: the snapshot's id. Snapshot volumes carry no environment label, so the
 * reaping of environments' orphans leaves them alone; src/snapshots/snapshot-reaping.ts looks after them.
 */
export const LABEL_SNAPSHOT = 'dev.hookbox.snapshot';

/** `copy` is the short-lived helper container that fills snapshots and forks. */
export type ResourceRole =
  'sandbox' | 'workspace' | 'agents' | 'state' | 'network' | 'egress' | 'copy';

let ownNamespace: string | undefined;

/** This process's pid namespace, e.g. `pid:[4026531836]` ('' where /proc does not say). */
export function pidNamespace(): string {
  if (ownNamespace === undefined) {
    try {
      ownNamespace = readlinkSync('/proc/self/ns/pid');
    } catch {
      ownNamespace = '';
    }
  }
  return ownNamespace;
}

/** The controller process that owns what it makes (labels), so orphans can be told apart. */
export interface ControllerIdentity {
  id: string;
  pid: number;
  /** The controller's state file, when it keeps one: environments listed there are not orphans. */
  stateFile?: string;
}

export function ownershipLabels(
  environmentId: string,
  role: ResourceRole,
  controller: ControllerIdentity,
): Record<string, string> {
  return {
    ...(controller.stateFile ? { [LABEL_STATE_FILE]: controller.stateFile } : {}),
    [LABEL_MANAGED]: 'true',
    [LABEL_ENVIRONMENT]: environmentId,
    [LABEL_ROLE]: role,
    [LABEL_CONTROLLER]: controller.id,
    [LABEL_CONTROLLER_PID]: String(controller.pid),
    [LABEL_CONTROLLER_PID_NAMESPACE]: pidNamespace(),
  };
}
