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

/** A network to make (an environment's internal network). */
export interface NetworkSpec {
  name: string;
  labels: Record<string, string>;
  /** No route out of the network (Docker `Internal`). */
  internal: boolean;
  /** Driver options, such as `com.docker.network.bridge.inhibit_ipv4`. */
  options: Record<string, string>;
}

/** A network as the engine describes it: its subnets, so the proxy and the checks know its addresses. */
export interface NetworkSummary {
  id: string;
  name: string;
  labels: Record<string, string>;
  internal: boolean;
  /** IPAM subnets, e.g. `172.18.0.0/16`. */
  subnets: string[];
  options: Record<string, string>;
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

/** An image as the engine describes it: what a template check needs from its configuration. */
export interface ImageSummary {
  id: string;
  /** Its repo:tag names. */
  tags: string[];
  labels: Record<string, string>;
  /** The `USER` it runs as ('' for root). */
  user: string;
  entrypoint: string[];
  cmd: string[];
  /** Paths it declares as `VOLUME`. */
  volumes: string[];
  /** `NAME=value` pairs of its `ENV`. */
  env: string[];
  /** Whether it declares a `HEALTHCHECK` (which the engine would run as root in the sandbox). */
  healthcheck: boolean;
  /** Size in bytes. */
  sizeBytes: number;
  created: string;
}

export interface ContainerState {
  running: boolean;
  status: string;
  oomKilled: boolean;
  exitCode: number;
}

/** How an image is built beyond its context, tag, build arguments and labels. */
export interface BuildImageOptions {
  /** The Dockerfile's path in the context. @default `Dockerfile` */
  dockerfile?: string;
  /** The build's output, line by line. */
  onOutput?: (line: string) => void;
}

/**
 * What hookbox needs from a container engine. The Docker implementation is
 * {@link DockerContainerClient}; unit tests may supply a fake.
 */
export interface ContainerClient {
  ping(): Promise<void>;
  /** The OCI runtimes the engine knows (Docker's `runtimes`); absent where there is no such list. */
  runtimes?(): Promise<string[]>;
  imageLabels(tag: string): Promise<Record<string, string> | undefined>;
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
  /** Makes a network; returns it as the engine describes it (subnets assigned). */
  createNetwork(spec: NetworkSpec): Promise<NetworkSummary>;
  /** Removes a network by name or id; one that is gone already is fine. */
  removeNetwork(nameOrId: string): Promise<void>;
  /** Networks with these labels (every network for an empty filter). */
  listNetworks(labelFilter: string[]): Promise<NetworkSummary[]>;
  /** The container's IPv4 address on a network, if it is attached to it. */
  containerAddress(id: string, network: string): Promise<string | undefined>;
  /**
   * Builds an image from a tar context. `onOutput` gets the build's output line by line (the
   * `Step N/M : …` lines say which instruction ran; a failed build's message is the error).
   */
  buildImage(
    context: Buffer,
    tag: string,
    buildArgs: Record<string, string>,
    labels: Record<string, string>,
    options?: BuildImageOptions,
  ): Promise<void>;
  /** The image's configuration, or undefined when there is no such image. */
  inspectImage(tag: string): Promise<ImageSummary | undefined>;
  /** Images with these labels. */
  listImages(labelFilter: string[]): Promise<ImageSummary[]>;
  /** Gives an image another name (`repo:tag`), moving the name if it was on another image. */
  tagImage(source: string, target: string): Promise<void>;
  /** Removes an image name (the image goes with its last name); one that is gone is fine. */
  removeImage(tag: string): Promise<void>;
}
