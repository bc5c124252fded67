import { Attach, CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { PassThrough } from 'node:stream';
import { SystemError } from '../../errors/index.js';
import type { Logger } from '../../record/logger.js';
import type {
  AttachedStdio,
  ContainerClient,
  ContainerState,
  ContainerSummary,
  NetworkSpec,
  NetworkSummary,
  SandboxContainerSpec,
  VolumeSummary,
  ImageSummary,
} from '../../sandbox/container-client.js';
import {
  KUBERNETES_DEFAULTS,
  SANDBOX_CONTAINER,
  sandboxPod,
  type KubernetesPodOptions,
} from './pod-spec.js';

/** Options of the Kubernetes backend (`hookbox serve --backend kubernetes`). */
export interface KubernetesBackendOptions extends KubernetesPodOptions {
  /** A loaded kubeconfig. @default KubeConfig.loadFromDefault(): $KUBECONFIG, ~/.kube, in-cluster */
  kubeConfig?: KubeConfig;
  /**
   * How long a new pod may take to be scheduled, pulled and running, in milliseconds.
   * @default 120000
   */
  podStartTimeoutMs?: number;
}

function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

function apiError(action: string, error: unknown): SystemError {
  const status = statusOf(error);
  if (status === undefined) {
    return new SystemError(
      'engine_unavailable',
      `No Kubernetes API answers (${(error as Error).message} while trying to ${action}). Check KUBECONFIG or the in-cluster service account.`,
      { retryable: true, cause: error },
    );
  }
  const body = (error as { body?: unknown }).body;
  const message =
    typeof body === 'string' ? body : ((body as { message?: string })?.message ?? String(error));
  return new SystemError('sandbox_failed', `Kubernetes API refused to ${action}: ${message}`, {
    details: { status },
    cause: error,
  });
}

/** Labels as written, plus the annotations that carried values labels cannot hold (pod-spec.ts). */
function labelsOf(pod: V1Pod): Record<string, string> {
  return { ...(pod.metadata?.annotations ?? {}), ...(pod.metadata?.labels ?? {}) };
}

function podState(pod: V1Pod): ContainerState {
  const status = pod.status?.containerStatuses?.find((c) => c.name === SANDBOX_CONTAINER);
  const terminated = status?.state?.terminated ?? status?.lastState?.terminated;
  return {
    running: pod.status?.phase === 'Running' && status?.state?.running !== undefined,
    status: (pod.status?.phase ?? 'Unknown').toLowerCase(),
    oomKilled: terminated?.reason === 'OOMKilled',
    exitCode: terminated?.exitCode ?? 0,
  };
}

/**
 * {@link ContainerClient} on a Kubernetes cluster: one pod per environment (its hardening in
 * pod-spec.ts), the agent stream over the attach websocket, volumes as the pod's emptyDirs. Container
 * ids are pod names. Internal networks (per-environment allowlists) are not offered here: sandbox pods
 * get the namespace's deny-all NetworkPolicy (docs/kubernetes.md).
 */
export class KubernetesContainerClient implements ContainerClient {
  readonly namespace: string;
  private readonly kubeConfig: KubeConfig;
  private readonly core: CoreV1Api;

  constructor(
    private readonly logger: Logger,
    private readonly options: KubernetesBackendOptions = {},
  ) {
    this.namespace = options.namespace ?? KUBERNETES_DEFAULTS.namespace;
    if (options.kubeConfig) this.kubeConfig = options.kubeConfig;
    else {
      this.kubeConfig = new KubeConfig();
      this.kubeConfig.loadFromDefault();
    }
    this.core = this.kubeConfig.makeApiClient(CoreV1Api);
  }

  private async call<T>(action: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await run();
      this.logger.debug(
        { action, durationMs: Math.round(performance.now() - started) },
        'kubernetes call',
      );
      return result;
    } catch (error) {
      this.logger.debug({ action, error: (error as Error).message }, 'kubernetes call failed');
      throw apiError(action, error);
    }
  }

  async ping(): Promise<void> {
    await this.call('list pods', () =>
      this.core.listNamespacedPod({ namespace: this.namespace, limit: 1 }),
    );
  }

  /** The cluster pulls images itself: an image is taken as present, and its labels as unknown. */
  async imageLabels(): Promise<Record<string, string> | undefined> {
    return {};
  }

  /** Volumes are the pod's emptyDirs, made with it. */
  async createVolume(): Promise<void> {}

  async removeVolume(): Promise<void> {}

  async createContainer(spec: SandboxContainerSpec): Promise<string> {
    const body = sandboxPod(spec, this.options);
    const pod = await this.call(`create pod ${body.metadata!.name}`, () =>
      this.core.createNamespacedPod({ namespace: this.namespace, body }),
    );
    return pod.metadata!.name!;
  }

  /** A pod starts when it is made; this waits until its container runs. */
  async startContainer(id: string): Promise<void> {
    const deadline = Date.now() + (this.options.podStartTimeoutMs ?? 120_000);
    for (;;) {
      const state = await this.inspectContainer(id);
      if (state?.running) return;
      if (state === undefined || ['succeeded', 'failed'].includes(state.status))
        throw new SystemError(
          'sandbox_failed',
          `pod ${id} did not start (${state?.status ?? 'gone'})`,
        );
      if (Date.now() > deadline)
        throw new SystemError('timeout', `pod ${id} was not running within the start timeout`, {
          retryable: true,
        });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async attach(id: string): Promise<AttachedStdio> {
    // Attaching needs a running container (Docker attaches before start; the agent waits on stdin).
    await this.startContainer(id);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const socket = await this.call(`attach to pod ${id}`, () =>
      new Attach(this.kubeConfig).attach(
        this.namespace,
        id,
        SANDBOX_CONTAINER,
        stdout,
        stderr,
        stdin,
        false,
      ),
    );
    const end = () => {
      stdout.end();
      stderr.end();
    };
    socket.on('close', end);
    socket.on('error', end);
    return {
      stdin,
      stdout,
      stderr,
      close: () => {
        stdin.end();
        socket.close();
      },
    };
  }

  async inspectContainer(id: string): Promise<ContainerState | undefined> {
    try {
      const pod = await this.core.readNamespacedPod({ name: id, namespace: this.namespace });
      return podState(pod);
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw apiError(`read pod ${id}`, error);
    }
  }

  async removeContainer(id: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({
        name: id,
        namespace: this.namespace,
        gracePeriodSeconds: 0,
      });
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw apiError(`delete pod ${id}`, error);
    }
  }

  /** Docker label filters (`key`, `key=value`) are Kubernetes label selectors as they are. */
  async listContainers(labelFilter: string[]): Promise<ContainerSummary[]> {
    const list = await this.call('list pods', () =>
      this.core.listNamespacedPod({
        namespace: this.namespace,
        labelSelector: labelFilter.join(','),
      }),
    );
    return list.items.map((pod) => ({
      id: pod.metadata!.name!,
      name: pod.metadata!.name!,
      state: podState(pod).running ? 'running' : podState(pod).status,
      labels: labelsOf(pod),
    }));
  }

  async listVolumes(): Promise<VolumeSummary[]> {
    return [];
  }

  async createNetwork(spec: NetworkSpec): Promise<NetworkSummary> {
    throw new SystemError(
      'sandbox_failed',
      `network ${spec.name}: per-environment networks (network.allowlist) are not offered by the Kubernetes backend; see docs/kubernetes.md`,
    );
  }

  async removeNetwork(): Promise<void> {}

  async listNetworks(): Promise<NetworkSummary[]> {
    return [];
  }

  async containerAddress(id: string): Promise<string | undefined> {
    const pod = await this.call(`read pod ${id}`, () =>
      this.core.readNamespacedPod({ name: id, namespace: this.namespace }),
    );
    return pod.status?.podIP;
  }

  async buildImage(): Promise<void> {
    throw new SystemError(
      'sandbox_failed',
      'the Kubernetes backend does not build images: build with `hookbox image build`, push, and pass --sandbox-image',
    );
  }

  /**
   * Images live in the cluster's registry, not on an engine this controller can ask: templates other
   * than `default` are not available on this backend (docs/kubernetes.md).
   */
  async inspectImage(): Promise<ImageSummary | undefined> {
    return undefined;
  }

  async listImages(): Promise<ImageSummary[]> {
    return [];
  }

  async tagImage(): Promise<void> {
    return this.buildImage();
  }

  async removeImage(): Promise<void> {
    return this.buildImage();
  }
}
