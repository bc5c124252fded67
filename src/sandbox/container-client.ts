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
  memoryMb: number;
  cpus: number;
  pidsLimit: number;
  capabilities: string[];
  network: 'none' | string;
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
 * What hookbox needs from a container engine. The Docker implementation is
 * {@link DockerContainerClient}; unit tests may supply a fake.
 */
export interface ContainerClient {
  ping(): Promise<void>;
  imageLabels(tag: string): Promise<Record<string, string> | undefined>;
  createVolume(name: string, labels: Record<string, string>): Promise<void>;
  removeVolume(name: string): Promise<void>;
  createContainer(spec: SandboxContainerSpec): Promise<string>;
  startContainer(id: string): Promise<void>;
  attach(id: string): Promise<AttachedStdio>;
  putArchive(id: string, path: string, tar: Buffer): Promise<void>;
  inspectContainer(id: string): Promise<ContainerState | undefined>;
  removeContainer(id: string): Promise<void>;
  listContainers(labelFilter: string[]): Promise<ContainerSummary[]>;
  listVolumes(labelFilter: string[]): Promise<VolumeSummary[]>;
  buildImage(
    context: Buffer,
    tag: string,
    buildArgs: Record<string, string>,
    labels: Record<string, string>,
  ): Promise<void>;
}
