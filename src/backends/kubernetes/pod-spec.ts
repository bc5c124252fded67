import type { V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { SandboxContainerSpec } from '../../sandbox/container-client.js';
import { SANDBOX_DEFAULTS } from '../../sandbox/sandbox-options.js';

/** Where and how the Kubernetes backend makes sandbox pods (docs/kubernetes.md). */
export interface KubernetesPodOptions {
  /** The namespace sandbox pods live in. @default 'hookbox' */
  namespace?: string;
  /**
   * The image as the cluster pulls it (a registry reference): the sandbox image hookbox builds,
   * pushed where the nodes can pull it. @default the spec's image
   */
  image?: string;
  /**
   * `runtimeClassName` for a sandbox whose runtime is not runc, by runtime: e.g. `{ runsc: 'gvisor' }`.
   * A runtime missing here is used as the class name itself.
   * @default {}
   */
  runtimeClasses?: Record<string, string>;
  /**
   * Size of the workspace `emptyDir`, in MiB (Docker's volume has no limit but the disk; Kubernetes
   * evicts a pod past its `sizeLimit`).
   * @default 1024
   */
  workspaceMb?: number;
}

export const KUBERNETES_DEFAULTS = {
  namespace: 'hookbox',
  workspaceMb: 1024,
} as const;

/** Where a pod records the pid limit Docker would have set (docs/kubernetes.md). */
export const PIDS_LIMIT_ANNOTATION = 'dev.hookbox.pids-limit';

/** The sandbox container's name in its pod (attach names it). */
export const SANDBOX_CONTAINER = 'sandbox';

/** Label values are at most 63 characters of [A-Za-z0-9._-], starting and ending alphanumeric. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/**
 * Docker labels as pod metadata: those whose value Kubernetes accepts as a label value stay labels
 * (selectors and reaping use them); the rest (the controller's pid namespace `pid:[…]`) become
 * annotations, read back as labels by the backend.
 */
export function splitLabels(labels: Record<string, string>): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  const result = {
    labels: {} as Record<string, string>,
    annotations: {} as Record<string, string>,
  };
  for (const [key, value] of Object.entries(labels)) {
    if (LABEL_VALUE.test(value)) result.labels[key] = value;
    else result.annotations[key] = value;
  }
  return result;
}

/** A pod name from a container name: DNS-1123 (lower case, digits, '-'), at most 63 characters. */
export function podName(containerName: string): string {
  return containerName
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');
}

function mib(value: number): string {
  return `${Math.max(1, Math.round(value))}Mi`;
}

/**
 * The pod for one sandbox: the Docker backend's hardening (src/backends/docker/docker-container-client.ts)
 * expressed as pod spec, one rule for one field (docs/kubernetes.md, Hardening table). Volumes are
 * `emptyDir`s that live and die with the pod; the same `agents` emptyDir is mounted read-only at
 * /.agents and /workspace/.agents and writable only at the agent's own path, as in Docker.
 */
export function sandboxPod(spec: SandboxContainerSpec, options: KubernetesPodOptions = {}): V1Pod {
  const namespace = options.namespace ?? KUBERNETES_DEFAULTS.namespace;
  const workspaceMb = options.workspaceMb ?? KUBERNETES_DEFAULTS.workspaceMb;
  const volumes: V1Volume[] = [];
  const mounts: V1VolumeMount[] = [];
  // Docker volumes by name; each becomes one emptyDir (the workspace with the size limit).
  const volumeNames = new Map<string, string>();
  for (const mount of spec.mounts) {
    let name = volumeNames.get(mount.volume);
    if (name === undefined) {
      name = `vol-${volumeNames.size}`;
      volumeNames.set(mount.volume, name);
      const isWorkspace = mount.target === '/workspace';
      volumes.push({ name, emptyDir: isWorkspace ? { sizeLimit: mib(workspaceMb) } : {} });
    }
    mounts.push({ name, mountPath: mount.target, readOnly: mount.readOnly });
  }
  // Paths a read-only root would otherwise leave writable (/dev/shm, /dev/mqueue): a tiny
  // read-only memory emptyDir over each, as Docker's read-only 4 KiB tmpfs.
  spec.readOnlyTmpfs.forEach((target, index) => {
    const name = `ro-tmpfs-${index}`;
    volumes.push({ name, emptyDir: { medium: 'Memory', sizeLimit: '4Ki' } });
    mounts.push({ name, mountPath: target, readOnly: true });
  });
  spec.writableTmpfs.forEach((tmpfs, index) => {
    const name = `tmpfs-${index}`;
    volumes.push({ name, emptyDir: { medium: 'Memory', sizeLimit: mib(tmpfs.sizeMb) } });
    mounts.push({ name, mountPath: tmpfs.target, readOnly: false });
  });
  const runtime = spec.runtime ?? SANDBOX_DEFAULTS.runtime;
  const runtimeClassName =
    runtime === 'runc' ? undefined : (options.runtimeClasses?.[runtime] ?? runtime);
  const [uid, gid] = (spec.user ?? '0:0').split(':').map(Number) as [number, number];
  const memory = mib(spec.memoryMb);
  const cpu = `${Math.max(1, Math.round(spec.cpus * 1000))}m`;
  const { labels, annotations } = splitLabels(spec.labels);
  // No pod field limits processes: the node's kubelet does (podPidsLimit). The annotation says what
  // the Docker backend would have set, for the operator and the conformance suite.
  annotations[PIDS_LIMIT_ANNOTATION] = String(spec.pidsLimit);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName(spec.name), namespace, labels, annotations },
    spec: {
      hostname: 'sandbox',
      restartPolicy: 'Never',
      // No API credentials in the sandbox: tool code must not reach the cluster's API.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      shareProcessNamespace: false,
      terminationGracePeriodSeconds: 0,
      ...(runtimeClassName ? { runtimeClassName } : {}),
      securityContext: {
        seccompProfile: { type: 'RuntimeDefault' },
        // The namespaced kernel settings Docker sets (IPv6 off on an internal network).
        ...(spec.sysctls
          ? { sysctls: Object.entries(spec.sysctls).map(([name, value]) => ({ name, value })) }
          : {}),
      },
      volumes,
      containers: [
        {
          name: SANDBOX_CONTAINER,
          image: options.image ?? spec.image,
          imagePullPolicy: 'IfNotPresent',
          ...(spec.entrypoint ? { command: spec.entrypoint, args: [] } : {}),
          ...(spec.env
            ? {
                env: spec.env.map((pair) => {
                  const at = pair.indexOf('=');
                  return { name: pair.slice(0, at), value: pair.slice(at + 1) };
                }),
              }
            : {}),
          // The agent's one long-lived stream: stdin stays open across attaches.
          stdin: true,
          stdinOnce: false,
          tty: false,
          securityContext: {
            readOnlyRootFilesystem: true,
            // no_new_privs, as Docker's no-new-privileges: the agent switches users with
            // setuid/setgid (allowed under no_new_privs); nothing gains privileges through exec.
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ['ALL'], add: [...spec.capabilities] },
            // The agent runs as root (it switches to the tool and hook users); tool and hook
            // processes run as non-root users through the agent (docs/kubernetes.md).
            runAsUser: uid,
            runAsGroup: gid,
            runAsNonRoot: uid !== 0,
            procMount: 'Default',
            seccompProfile: { type: 'RuntimeDefault' },
          },
          // requests = limits: Guaranteed QoS, so no swap on nodes with NodeSwap (Docker's
          // MemorySwap = Memory).
          resources: {
            limits: { memory, cpu, 'ephemeral-storage': mib(64) },
            requests: { memory, cpu, 'ephemeral-storage': mib(64) },
          },
          volumeMounts: mounts,
        },
      ],
    },
  };
}
