import type { Readable, Writable } from 'node:stream';

/** The attached stdio of a running container: the sandbox agent's one long-lived stream. */
export interface AttachedStdio {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  /** Ends the attachment; the container keeps running. */
  close(): void;
}

export interface VolumeMount {
  volume: string;
  target: string;
  readOnly: boolean;
}

export interface SandboxContainerSpec {
  name: string;
  image: string;
  labels: Record<string, string>;
  mounts: VolumeMount[];
  /** Read-only tmpfs mounts that cover a path Docker would otherwise leave writable. */
  readOnlyTmpfs: string[];
  /** Writable tmpfs mounts (only when the environment asks for `writable_tmp`). */
  writableTmpfs: { target: string; sizeMb: number }[];
  /**
   * Writable tmpfs mounts only root may enter (mode 0700): the agent's channel socket. An engine
   * that cannot reach into the container leaves them out (the agent then has only its stdio).
   */
  rootOnlyTmpfs?: { target: string; sizeMb: number }[];
  memoryMb: number;
  cpus: number;
  pidsLimit: number;
  capabilities: string[];
  network: 'none' | string;
  /** Environment variables (`NAME=value`). Never secrets: `docker inspect` shows them. */
  env?: string[];
  /** Namespaced kernel settings, such as `net.ipv6.conf.all.disable_ipv6`. */
  sysctls?: Record<string, string>;
  /** Host folders mounted into the container (the egress relay's proxy socket folder). */
  bindMounts?: { source: string; target: string; readOnly: boolean }[];
  /** `uid:gid` the entrypoint runs as. @default '0:0' */
  user?: string;
  /** Replaces the image's entrypoint (the egress relay runs from the sandbox image). */
  entrypoint?: string[];
  /** The OCI runtime (`runsc` for gVisor). @default the engine's default (runc) */
  runtime?: string;
}

export interface ContainerSummary {
  id: string;
  name: string;
  state: string;
  labels: Record<string, string>;
}

export interface VolumeSummary {
  name: string;
  labels: Record<string, string>;
}

export interface ContainerState {
  running: boolean;
  status: string;
  oomKilled: boolean;
  exitCode: number;
}

/**
 * What every backend does: containers, their volumes and the attached stdio of the sandbox agent
 * (docs/kubernetes.md, "What each backend offers"). Images and networks are parts of their own,
 * which a backend offers whole or not at all (backend.ts). The optional methods are capabilities a backend may
 * lack; each caller says what it does without one.
 */
export interface ContainerRuntime {
  ping(): Promise<void>;
  /** The OCI runtimes the engine knows (Docker's `runtimes`); absent where there is no such list. */
  runtimes?(): Promise<string[]>;
  createVolume(name: string, labels: Record<string, string>): Promise<void>;
  removeVolume(name: string): Promise<void>;
  createContainer(spec: SandboxContainerSpec): Promise<string>;
  startContainer(id: string): Promise<void>;
  attach(id: string): Promise<AttachedStdio>;
  /**
   * Where this controller may reach the sandbox agent's channel socket in a running container, if
   * anywhere (Docker: through the container's root as the host's /proc shows it, which needs a
   * controller on the engine's host with the rights to look there). Optional: without it, or
   * when it is undefined, requests travel over the attached stdio (docs/agent-protocol.md, "The
   * stream").
   */
  agentChannelPath?(id: string): Promise<string | undefined>;
  /**
   * What changed in a container's root filesystem since it was made (`docker diff`), one
   * `<C|A|D> <path>` line each, sorted; undefined when the engine cannot see the container's writes
   * (a runtime that keeps them inside its own sandbox). Optional: without it, `hookbox test` walks
   * the root filesystem from inside instead (docs/gates.md, "How the cases run").
   */
  rootFilesystemChanges?(id: string): Promise<string[] | undefined>;
  inspectContainer(id: string): Promise<ContainerState | undefined>;
  removeContainer(id: string): Promise<void>;
  /**
   * Waits for a started container to exit; its exit code. Optional: an engine without it cannot run
   * the short-lived copy helpers of snapshots and forks (docs/environments.md, "Snapshots and forks").
   */
  waitContainer?(id: string): Promise<number>;
  listContainers(labelFilter: string[]): Promise<ContainerSummary[]>;
  listVolumes(labelFilter: string[]): Promise<VolumeSummary[]>;
  /**
   * Bytes each volume holds, by name (the engine walks them: call it rarely). Optional: an engine
   * that cannot tell leaves workspace-disk quotas unenforced.
   */
  volumeSizes?(): Promise<Map<string, number>>;
}
