import Docker from 'dockerode';
import { PassThrough, Readable } from 'node:stream';
import { SystemError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import type {
  AttachedStdio,
  ContainerClient,
  ContainerState,
  ContainerSummary,
  ImageSummary,
  NetworkSpec,
  NetworkSummary,
  SandboxContainerSpec,
  VolumeSummary,
} from './container-client.js';

/** Engine errors become SystemErrors; a socket nobody answers on becomes `engine_unavailable`. */
function engineError(action: string, error: unknown): SystemError {
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') {
    return new SystemError(
      'engine_unavailable',
      `No Docker engine answers (${code} while trying to ${action}). Run \`hookbox doctor\`.`,
      { retryable: true, cause: error },
    );
  }
  const status = (error as { statusCode?: number }).statusCode;
  const message =
    (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
  return new SystemError('sandbox_failed', `Docker engine refused to ${action}: ${message}`, {
    details: status === undefined ? {} : { status },
    cause: error,
  });
}

function networkSummary(info: Docker.NetworkInspectInfo): NetworkSummary {
  return {
    id: info.Id,
    name: info.Name,
    labels: info.Labels ?? {},
    internal: info.Internal,
    subnets: (info.IPAM?.Config ?? []).flatMap((config) => (config.Subnet ? [config.Subnet] : [])),
    options: info.Options ?? {},
  };
}

function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/** {@link ContainerClient} backed by a Docker engine through dockerode. Every call is logged. */
export class DockerContainerClient implements ContainerClient {
  readonly docker: Docker;

  constructor(
    private readonly logger: Logger,
    docker?: Docker,
  ) {
    this.docker = docker ?? new Docker();
  }

  private async call<T>(
    action: string,
    context: Record<string, unknown>,
    run: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    try {
      const result = await run();
      this.logger.debug(
        { ...context, action, durationMs: Math.round(performance.now() - started) },
        'engine call',
      );
      return result;
    } catch (error) {
      this.logger.debug(
        { ...context, action, error: (error as Error).message },
        'engine call failed',
      );
      throw engineError(action, error);
    }
  }

  async ping(): Promise<void> {
    await this.call('ping', {}, () => this.docker.ping());
  }

  async imageLabels(tag: string): Promise<Record<string, string> | undefined> {
    try {
      const info = await this.docker.getImage(tag).inspect();
      return info.Config?.Labels ?? {};
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw engineError(`inspect image ${tag}`, error);
    }
  }

  async createVolume(name: string, labels: Record<string, string>): Promise<void> {
    await this.call('create volume', { volume: name }, () =>
      this.docker.createVolume({ Name: name, Labels: labels }),
    );
  }

  async removeVolume(name: string): Promise<void> {
    try {
      await this.call('remove volume', { volume: name }, () =>
        this.docker.getVolume(name).remove({ force: true }),
      );
    } catch (error) {
      if (isNotFound((error as SystemError).cause)) return;
      throw error;
    }
  }

  async createContainer(spec: SandboxContainerSpec): Promise<string> {
    const container = await this.call('create container', { name: spec.name }, () =>
      this.docker.createContainer({
        name: spec.name,
        Image: spec.image,
        Labels: spec.labels,
        Hostname: 'sandbox',
        User: spec.user ?? '0:0',
        ...(spec.env ? { Env: spec.env } : {}),
        ...(spec.entrypoint ? { Entrypoint: spec.entrypoint, Cmd: [] } : {}),
        Tty: false,
        OpenStdin: true,
        StdinOnce: false,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        NetworkDisabled: spec.network === 'none',
        HostConfig: {
          ReadonlyRootfs: true,
          ...(spec.runtime ? { Runtime: spec.runtime } : {}),
          CapDrop: ['ALL'],
          CapAdd: spec.capabilities,
          SecurityOpt: ['no-new-privileges:true'],
          NetworkMode: spec.network,
          IpcMode: 'private',
          Memory: spec.memoryMb * 1024 * 1024,
          MemorySwap: spec.memoryMb * 1024 * 1024,
          NanoCpus: Math.round(spec.cpus * 1e9),
          PidsLimit: spec.pidsLimit,
          ...(spec.sysctls ? { Sysctls: spec.sysctls } : {}),
          LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
          Mounts: [
            ...spec.mounts.map((mount) => ({
              Type: 'volume' as const,
              Source: mount.volume,
              Target: mount.target,
              ReadOnly: mount.readOnly,
            })),
            ...(spec.bindMounts ?? []).map((mount) => ({
              Type: 'bind' as const,
              Source: mount.source,
              Target: mount.target,
              ReadOnly: mount.readOnly,
            })),
            ...spec.readOnlyTmpfs.map((target) => ({
              Type: 'tmpfs' as const,
              Source: '',
              Target: target,
              ReadOnly: true,
              TmpfsOptions: { SizeBytes: 4096, Mode: 0o755 },
            })),
            ...spec.writableTmpfs.map((tmpfs) => ({
              Type: 'tmpfs' as const,
              Source: '',
              Target: tmpfs.target,
              TmpfsOptions: { SizeBytes: tmpfs.sizeMb * 1024 * 1024, Mode: 0o1777 },
            })),
          ],
        },
      }),
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

  async inspectContainer(id: string): Promise<ContainerState | undefined> {
    try {
      const info = await this.docker.getContainer(id).inspect();
      return {
        running: info.State.Running,
        status: info.State.Status,
        oomKilled: info.State.OOMKilled,
        exitCode: info.State.ExitCode,
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw engineError(`inspect container ${id}`, error);
    }
  }

  async removeContainer(id: string): Promise<void> {
    try {
      await this.call('remove container', { containerId: id }, () =>
        this.docker.getContainer(id).remove({ force: true, v: true }),
      );
    } catch (error) {
      if (isNotFound((error as SystemError).cause)) return;
      throw error;
    }
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
            dial(options: object, callback: (error: unknown, data: unknown) => void): void;
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

  async createNetwork(spec: NetworkSpec): Promise<NetworkSummary> {
    const network = await this.call('create network', { network: spec.name }, () =>
      this.docker.createNetwork({
        Name: spec.name,
        Driver: 'bridge',
        Internal: spec.internal,
        CheckDuplicate: true,
        EnableIPv6: false,
        Labels: spec.labels,
        Options: spec.options,
      }),
    );
    const info = await this.call('inspect network', { network: spec.name }, () =>
      network.inspect(),
    );
    return networkSummary(info);
  }

  async removeNetwork(nameOrId: string): Promise<void> {
    try {
      await this.call('remove network', { network: nameOrId }, () =>
        this.docker.getNetwork(nameOrId).remove(),
      );
    } catch (error) {
      if (isNotFound((error as SystemError).cause)) return;
      throw error;
    }
  }

  async listNetworks(labelFilter: string[]): Promise<NetworkSummary[]> {
    const list = await this.call('list networks', { labelFilter }, () =>
      this.docker.listNetworks(labelFilter.length > 0 ? { filters: { label: labelFilter } } : {}),
    );
    return list.map(networkSummary);
  }

  async containerAddress(id: string, network: string): Promise<string | undefined> {
    const info = await this.call('inspect container', { containerId: id }, () =>
      this.docker.getContainer(id).inspect(),
    );
    const address = info.NetworkSettings?.Networks?.[network]?.IPAddress;
    return address ? address : undefined;
  }

  async buildImage(
    context: Buffer,
    tag: string,
    buildArgs: Record<string, string>,
    labels: Record<string, string>,
    options: { dockerfile?: string; onOutput?: (line: string) => void } = {},
  ): Promise<void> {
    await this.call('build image', { tag }, async () => {
      const stream = await this.docker.buildImage(
        Readable.from([context]) as unknown as NodeJS.ReadableStream,
        {
          t: tag,
          buildargs: buildArgs,
          labels,
          rm: true,
          forcerm: true,
          ...(options.dockerfile ? { dockerfile: options.dockerfile } : {}),
        },
      );
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(
          stream,
          (
            error: Error | null,
            events: { error?: string; errorDetail?: { message?: string } }[],
          ) => {
            const failed = events?.find((event) => event.error);
            if (error) reject(error);
            else if (failed) reject(new Error(failed.errorDetail?.message ?? failed.error));
            else resolve();
          },
          (event: { stream?: string }) => {
            if (!options.onOutput || typeof event.stream !== 'string') return;
            for (const line of event.stream.split('\n')) if (line.trim()) options.onOutput(line);
          },
        );
      });
    });
  }

  async inspectImage(tag: string): Promise<ImageSummary | undefined> {
    try {
      const info = await this.docker.getImage(tag).inspect();
      return imageSummary(info);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw engineError(`inspect image ${tag}`, error);
    }
  }

  async listImages(labelFilter: string[]): Promise<ImageSummary[]> {
    const list = await this.call('list images', { labelFilter }, () =>
      this.docker.listImages({ filters: { label: labelFilter } }),
    );
    const summaries: ImageSummary[] = [];
    for (const image of list) {
      const summary = await this.inspectImage(image.Id);
      if (summary) summaries.push(summary);
    }
    return summaries;
  }

  async tagImage(source: string, target: string): Promise<void> {
    const colon = target.lastIndexOf(':');
    await this.call('tag image', { source, target }, () =>
      this.docker
        .getImage(source)
        .tag({ repo: target.slice(0, colon), tag: target.slice(colon + 1) }),
    );
  }

  async removeImage(tag: string): Promise<void> {
    try {
      await this.call('remove image', { tag }, () => this.docker.getImage(tag).remove({}));
    } catch (error) {
      if (isNotFound((error as SystemError).cause)) return;
      throw error;
    }
  }
}

function imageSummary(info: Docker.ImageInspectInfo): ImageSummary {
  const config = info.Config ?? ({} as Docker.ImageInspectInfo['Config']);
  const healthcheck = (config as { Healthcheck?: { Test?: string[] } }).Healthcheck;
  return {
    id: info.Id,
    tags: info.RepoTags ?? [],
    labels: config.Labels ?? {},
    user: config.User ?? '',
    entrypoint: asList(config.Entrypoint),
    cmd: asList(config.Cmd),
    volumes: Object.keys(config.Volumes ?? {}),
    env: config.Env ?? [],
    healthcheck: healthcheck?.Test !== undefined && healthcheck.Test[0] !== 'NONE',
    sizeBytes: info.Size,
    created: info.Created,
  };
}

function asList(value: string | string[] | undefined | null): string[] {
  if (value === undefined || value === null) return [];
  return typeof value === 'string' ? [value] : value;
}
