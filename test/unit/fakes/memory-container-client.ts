/**
 * An in-memory container engine for the fast tier (docs/testing.md, "The fast tier"): containers,
 * volumes, networks and images are entries in maps, and each container's "process" is a
 * {@link MemoryAgent} whose streams `attach` hands out. It implements the same ContainerClient as
 * the Docker client, so the compiler holds it to that interface; nothing runs and nothing is
 * contained (not a sandbox).
 */
import type { ContainerClient } from '../../../src/sandbox/backend.js';
import type {
  AttachedStdio,
  ContainerState,
  ContainerSummary,
  SandboxContainerSpec,
  VolumeSummary,
} from '../../../src/sandbox/container-runtime.js';
import type { ImageSummary } from '../../../src/sandbox/image-store.js';
import type { NetworkSpec, NetworkSummary } from '../../../src/sandbox/network-store.js';
import { MemoryAgent, type MemoryAgentOptions } from './memory-agent.js';

interface MemoryContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** What the controller asked for (absent for one made by {@link MemoryContainerClient.runAgent}). */
  spec?: SandboxContainerSpec;
  agent: MemoryAgent;
  running: boolean;
  exitCode: number;
}

/** True when `labels` has every `key=value` (or `key`) of `filter`. */
function matches(labels: Record<string, string>, filter: string[]): boolean {
  return filter.every((term) => {
    const [key, value] = term.split('=', 2) as [string, string | undefined];
    return value === undefined ? key in labels : labels[key] === value;
  });
}

function image(tag: string, labels: Record<string, string> = {}): ImageSummary {
  return {
    id: `sha256:${tag}`,
    tags: [tag],
    labels,
    user: '',
    entrypoint: [],
    cmd: [],
    volumes: [],
    env: [],
    healthcheck: false,
    sizeBytes: 0,
    created: new Date(0).toISOString(),
  };
}

/** A ContainerClient whose containers are in-memory agents. */
export class MemoryContainerClient implements ContainerClient {
  readonly containers = new Map<string, MemoryContainer>();
  readonly volumes = new Map<string, Record<string, string>>();
  readonly networks = new Map<string, NetworkSummary>();
  readonly images = new Map<string, ImageSummary>();
  private counter = 0;

  /**
   * `agentOptions` makes the agent of each new container (the same hooks and code for all by
   * default); `images` are the tags the engine has.
   */
  constructor(
    private readonly agentOptions: (spec: SandboxContainerSpec) => MemoryAgentOptions = () => ({}),
    images: string[] = [],
  ) {
    for (const tag of images) this.images.set(tag, image(tag));
  }

  /** The agent of the one container there is (most fast tests make one environment). */
  get onlyAgent(): MemoryAgent {
    const [only, ...more] = [...this.containers.values()];
    if (!only || more.length > 0) throw new Error(`${this.containers.size} containers, not one`);
    return only.agent;
  }

  /** A running container, made and started without a spec of the controller's (for Sandbox.reattach). */
  async runAgent(options: MemoryAgentOptions = {}): Promise<{ id: string; agent: MemoryAgent }> {
    const id = `memory-${++this.counter}`;
    const agent = new MemoryAgent(options);
    this.containers.set(id, { id, name: id, labels: {}, agent, running: true, exitCode: 0 });
    return { id, agent };
  }

  private container(id: string): MemoryContainer {
    const container = this.containers.get(id);
    if (!container) throw new Error(`no such container: ${id}`);
    return container;
  }

  async ping(): Promise<void> {}

  async imageLabels(tag: string): Promise<Record<string, string> | undefined> {
    return this.images.get(tag)?.labels;
  }

  async createVolume(name: string, labels: Record<string, string>): Promise<void> {
    this.volumes.set(name, labels);
  }

  async removeVolume(name: string): Promise<void> {
    this.volumes.delete(name);
  }

  async createContainer(spec: SandboxContainerSpec): Promise<string> {
    const id = `memory-${++this.counter}`;
    const agent = new MemoryAgent(this.agentOptions(spec));
    const { name, labels } = spec;
    this.containers.set(id, { id, name, labels, spec, agent, running: false, exitCode: 0 });
    return id;
  }

  async startContainer(id: string): Promise<void> {
    this.container(id).running = true;
  }

  async attach(id: string): Promise<AttachedStdio> {
    return this.container(id).agent.connect();
  }

  async inspectContainer(id: string): Promise<ContainerState | undefined> {
    const container = this.containers.get(id);
    if (!container) return undefined;
    return {
      running: container.running,
      status: container.running ? 'running' : 'exited',
      oomKilled: false,
      exitCode: container.exitCode,
    };
  }

  /** The container's process ends (as `docker kill` would): its agent's streams close. */
  kill(id: string): void {
    const container = this.container(id);
    container.running = false;
    container.exitCode = 137;
    container.agent.stop();
  }

  async removeContainer(id: string): Promise<void> {
    this.containers.get(id)?.agent.stop();
    this.containers.delete(id);
  }

  async waitContainer(id: string): Promise<number> {
    return this.container(id).exitCode;
  }

  async listContainers(labelFilter: string[]): Promise<ContainerSummary[]> {
    return [...this.containers.values()]
      .filter((c) => matches(c.labels, labelFilter))
      .map((c) => ({
        id: c.id,
        name: c.name,
        state: c.running ? 'running' : 'exited',
        labels: c.labels,
      }));
  }

  async listVolumes(labelFilter: string[]): Promise<VolumeSummary[]> {
    return [...this.volumes]
      .filter(([, labels]) => matches(labels, labelFilter))
      .map(([name, labels]) => ({ name, labels }));
  }

  async createNetwork(spec: NetworkSpec): Promise<NetworkSummary> {
    const network: NetworkSummary = {
      id: `net-${++this.counter}`,
      name: spec.name,
      labels: spec.labels,
      internal: spec.internal,
      subnets: [`10.${this.counter % 250}.0.0/24`],
      options: spec.options,
    };
    this.networks.set(spec.name, network);
    return network;
  }

  async removeNetwork(nameOrId: string): Promise<void> {
    for (const [name, network] of this.networks)
      if (name === nameOrId || network.id === nameOrId) this.networks.delete(name);
  }

  async listNetworks(labelFilter: string[]): Promise<NetworkSummary[]> {
    return [...this.networks.values()].filter((n) => matches(n.labels, labelFilter));
  }

  async containerAddress(): Promise<string | undefined> {
    return undefined;
  }

  async buildImage(
    _context: Buffer,
    tag: string,
    _buildArgs: Record<string, string>,
    labels: Record<string, string>,
  ): Promise<void> {
    this.images.set(tag, image(tag, labels));
  }

  async inspectImage(tag: string): Promise<ImageSummary | undefined> {
    return this.images.get(tag);
  }

  async listImages(labelFilter: string[]): Promise<ImageSummary[]> {
    return [...this.images.values()].filter((i) => matches(i.labels, labelFilter));
  }

  async tagImage(source: string, target: string): Promise<void> {
    const found = this.images.get(source);
    if (!found) throw new Error(`no such image: ${source}`);
    this.images.set(target, { ...found, tags: [...found.tags, target] });
  }

  async removeImage(tag: string): Promise<void> {
    this.images.delete(tag);
  }
}
