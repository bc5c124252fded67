import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import type {
  AttachedStdio,
  ContainerRuntime,
  ContainerState,
  ContainerSummary,
  SandboxContainerSpec,
  VolumeSummary,
} from '../../sandbox/container-runtime.js';
import { containerCreateOptions } from './docker-container-create.js';
import { unlessNotFound, type EngineCall } from './docker-engine-call.js';
import { SANDBOX_PATHS } from '../../sandbox/protocol/paths.js';

/**
 * The Docker engine's containers, volumes and attach, with every optional capability
 * (src/backends/docker/docker-backend.ts puts it together with images and networks).
 */
export class DockerRuntime implements ContainerRuntime {
  /** The engine's default OCI runtime, asked once. */
  private defaultRuntime: Promise<string> | undefined;

  constructor(
    private readonly docker: Docker,
    /** Runs one engine call, logged (src/backends/docker/docker-engine-call.ts). */
    private readonly call: EngineCall,
  ) {}

  async ping(): Promise<void> {
    await this.call('ping', {}, () => this.docker.ping());
  }

  async runtimes(): Promise<string[]> {
    const info = (await this.call('info', {}, () => this.docker.info())) as {
      Runtimes?: Record<string, unknown>;
    };
    return Object.keys(info.Runtimes ?? {});
  }

  async createVolume(name: string, labels: Record<string, string>): Promise<void> {
    await this.call('create volume', { volume: name }, () =>
      this.docker.createVolume({ Name: name, Labels: labels }),
    );
  }

  async removeVolume(name: string): Promise<void> {
    await unlessNotFound(
      this.call('remove volume', { volume: name }, () =>
        this.docker.getVolume(name).remove({ force: true }),
      ),
    );
  }

  async createContainer(spec: SandboxContainerSpec): Promise<string> {
    const container = await this.call('create container', { name: spec.name }, () =>
      this.docker.createContainer(containerCreateOptions(spec)),
    );
    return container.id;
  }

  async startContainer(id: string): Promise<void> {
    await this.call('start container', { containerId: id }, () =>
      this.docker.getContainer(id).start(),
    );
  }

  async attach(id: string): Promise<AttachedStdio> {
    const stream = (await this.call('attach', { containerId: id }, () =>
      this.docker
        .getContainer(id)
        .attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true }),
    )) as NodeJS.ReadWriteStream & { destroy(): void };
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    this.docker.modem.demuxStream(stream, stdout, stderr);
    const end = () => {
      stdout.end();
      stderr.end();
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
    return {
      stdin: stream as unknown as NodeJS.WritableStream as AttachedStdio['stdin'],
      stdout,
      stderr,
      close: () => stream.destroy(),
    };
  }

  async agentChannelPath(id: string): Promise<string | undefined> {
    const info = await unlessNotFound(
      this.call('inspect container', { containerId: id }, () =>
        this.docker.getContainer(id).inspect(),
      ),
    );
    const pid = info?.State.Running ? info.State.Pid : 0;
    return pid > 0 ? `/proc/${pid}/root${SANDBOX_PATHS.agentChannel}/agent.sock` : undefined;
  }

  async inspectContainer(id: string): Promise<ContainerState | undefined> {
    const info = await unlessNotFound(
      this.call('inspect container', { containerId: id }, () =>
        this.docker.getContainer(id).inspect(),
      ),
    );
    return (
      info && {
        running: info.State.Running,
        status: info.State.Status,
        oomKilled: info.State.OOMKilled,
        exitCode: info.State.ExitCode,
      }
    );
  }

  /**
   * `docker diff`: under runc a container's writes to its root filesystem land in its layer on the
   * host, where the engine lists them. Other runtimes (gVisor) keep them inside their sandbox, where
   * the engine cannot see: undefined then.
   */
  async rootFilesystemChanges(id: string): Promise<string[] | undefined> {
    const container = this.docker.getContainer(id);
    const info = await this.call('inspect container', { containerId: id }, () =>
      container.inspect(),
    );
    this.defaultRuntime ??= this.call('info', {}, () => this.docker.info()).then(
      (engine) => (engine as { DefaultRuntime?: string }).DefaultRuntime ?? 'runc',
    );
    const runtime = info.HostConfig.Runtime || (await this.defaultRuntime);
    if (runtime !== 'runc') return undefined;
    const changes = (await this.call('container changes', { containerId: id }, () =>
      container.changes(),
    )) as { Kind: number; Path: string }[] | null;
    // Kind: 0 changed, 1 added, 2 deleted (the engine's API).
    return (changes ?? []).map((change) => `${'CAD'[change.Kind] ?? '?'} ${change.Path}`).sort();
  }

  async removeContainer(id: string): Promise<void> {
    await unlessNotFound(
      this.call('remove container', { containerId: id }, () =>
        this.docker.getContainer(id).remove({ force: true, v: true }),
      ),
    );
  }

  async waitContainer(id: string): Promise<number> {
    const outcome = (await this.call('wait container', { containerId: id }, () =>
      this.docker.getContainer(id).wait(),
    )) as { StatusCode?: number };
    return outcome.StatusCode ?? -1;
  }

  async listContainers(labelFilter: string[]): Promise<ContainerSummary[]> {
    const list = await this.call('list containers', { labelFilter }, () =>
      this.docker.listContainers({ all: true, filters: { label: labelFilter } }),
    );
    return list.map((container) => ({
      id: container.Id,
      name: (container.Names[0] ?? '').replace(/^\//, ''),
      state: container.State,
      labels: container.Labels ?? {},
    }));
  }

  async volumeSizes(): Promise<Map<string, number>> {
    const usage = await this.call('disk usage of volumes', {}, async () => {
      const modem = (
        this.docker as unknown as {
          modem: {
            dial(options: object, callback: (error: Error | null, data: unknown) => void): void;
          };
        }
      ).modem;
      return new Promise<{ Volumes?: { Name: string; UsageData?: { Size?: number } }[] }>(
        (resolve, reject) =>
          modem.dial(
            {
              path: '/system/df?',
              method: 'GET',
              options: { type: 'volume' },
              statusCodes: { 200: true, 400: 'bad parameter', 500: 'server error' },
            },
            (error, data) => (error ? reject(error) : resolve(data as never)),
          ),
      );
    });
    const sizes = new Map<string, number>();
    for (const volume of usage.Volumes ?? [])
      if ((volume.UsageData?.Size ?? -1) >= 0) sizes.set(volume.Name, volume.UsageData!.Size!);
    return sizes;
  }

  async listVolumes(labelFilter: string[]): Promise<VolumeSummary[]> {
    const list = await this.call('list volumes', { labelFilter }, () =>
      this.docker.listVolumes({ filters: { label: labelFilter } }),
    );
    return (list.Volumes ?? []).map((volume) => ({
      name: volume.Name,
      labels: volume.Labels ?? {},
    }));
  }
}
