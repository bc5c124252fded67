// The Docker engine's images (build, inspect, list, tag, remove), for DockerContainerClient.
import type Docker from 'dockerode';
import { Readable } from 'node:stream';
import type { BuildImageOptions, ImageSummary } from '../../sandbox/container-client.js';
import { unlessNotFound, type EngineCall } from './docker-engine-call.js';

export class DockerImages {
  constructor(
    private readonly docker: Docker,
    private readonly call: EngineCall,
  ) {}

  async labels(tag: string): Promise<Record<string, string> | undefined> {
    const info = await unlessNotFound(
      this.call('inspect image', { tag }, () => this.docker.getImage(tag).inspect()),
    );
    return info && (info.Config?.Labels ?? {});
  }

  async build(
    context: Buffer,
    tag: string,
    buildArgs: Record<string, string>,
    labels: Record<string, string>,
    options: BuildImageOptions = {},
  ): Promise<void> {
    await this.call('build image', { tag }, async () => {
      const stream = await this.docker.buildImage(Readable.from([context]), {
        t: tag,
        buildargs: buildArgs,
        labels,
        rm: true,
        forcerm: true,
        ...(options.dockerfile ? { dockerfile: options.dockerfile } : {}),
      });
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

  async inspect(tag: string): Promise<ImageSummary | undefined> {
    const info = await unlessNotFound(
      this.call('inspect image', { tag }, () => this.docker.getImage(tag).inspect()),
    );
    return info && imageSummary(info);
  }

  async list(labelFilter: string[]): Promise<ImageSummary[]> {
    const list = await this.call('list images', { labelFilter }, () =>
      this.docker.listImages({ filters: { label: labelFilter } }),
    );
    const summaries: ImageSummary[] = [];
    for (const image of list) {
      const summary = await this.inspect(image.Id);
      if (summary) summaries.push(summary);
    }
    return summaries;
  }

  async tag(source: string, target: string): Promise<void> {
    const colon = target.lastIndexOf(':');
    await this.call('tag image', { source, target }, () =>
      this.docker
        .getImage(source)
        .tag({ repo: target.slice(0, colon), tag: target.slice(colon + 1) }),
    );
  }

  async remove(tag: string): Promise<void> {
    await unlessNotFound(
      this.call('remove image', { tag }, () => this.docker.getImage(tag).remove({})),
    );
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
