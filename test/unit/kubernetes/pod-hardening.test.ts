// The Kubernetes backend's pod spec against the Docker backend's hardening, one row per rule
// (docs/kubernetes.md, Hardening table), and every generated object against the Kubernetes OpenAPI
// schemas (kubernetes-models' validators). Pure logic: the Docker side is captured from what
// the Docker backend would send, through a stand-in for dockerode.
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { Pod } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { podName, sandboxPod, splitLabels } from '../../../src/backends/kubernetes/pod-spec.js';
import { sandboxNetworkPolicy } from '../../../src/backends/kubernetes/manifests.js';
import { createLogger } from '../../../src/record/logger.js';
import type { SandboxContainerSpec } from '../../../src/sandbox/container-runtime.js';
import { DockerBackend } from '../../../src/backends/docker/docker-backend.js';
import { LABEL_ROLE } from '../../../src/sandbox/labels.js';
import { SANDBOX_PATHS } from '../../../src/sandbox/protocol/paths.js';
import { Sandbox } from '../../../src/sandbox/sandbox.js';
import { MemoryContainerClient } from '../fakes/memory-container-client.js';

const logger = createLogger({ level: 'silent' });

/**
 * The in-memory engine (test/unit/fakes/memory-container-client.ts), stopped at the container: it
 * keeps the spec Sandbox.create hands it and refuses, so creation stops right there.
 */
class SpecCapture extends MemoryContainerClient {
  captured: SandboxContainerSpec | undefined;

  override async createContainer(spec: SandboxContainerSpec): Promise<string> {
    this.captured = spec;
    throw new Error('captured');
  }
}

/** The spec Sandbox.create hands its client, for these options. */
async function specFor(options: Parameters<typeof Sandbox.create>[0]['options']) {
  const client = new SpecCapture();
  await expect(
    Sandbox.create({
      client,
      logger,
      controller: { id: 'ctl', pid: 1 },
      environmentId: 'env_test',
      image: 'hookbox/sandbox:test',
      sources: [],
      options,
    }),
  ).rejects.toThrow('captured');
  return client.captured!;
}

/** What the Docker backend sends the engine for a spec. */
async function dockerBodyFor(spec: SandboxContainerSpec) {
  let body: { HostConfig: Record<string, unknown> } & Record<string, unknown> = { HostConfig: {} };
  const docker = {
    createContainer: async (options: typeof body) => {
      body = options;
      return { id: 'x' };
    },
  };
  await new DockerBackend(logger, docker as never).runtime.createContainer(spec);
  return body;
}

let spec: SandboxContainerSpec;
let pod: V1Pod;
let container: V1Container;
let docker: Awaited<ReturnType<typeof dockerBodyFor>>;

beforeAll(async () => {
  spec = await specFor({
    memoryMb: 512,
    cpus: 1.5,
    pidsLimit: 128,
    writableTmp: true,
    runtime: 'runsc',
  });
  docker = await dockerBodyFor(spec);
  pod = sandboxPod(spec, { runtimeClasses: { runsc: 'gvisor' }, workspaceMb: 2048 });
  container = pod.spec!.containers[0]!;
});

const mountAt = (path: string) => container.volumeMounts!.find((m) => m.mountPath === path)!;
const volumeOf = (path: string) => pod.spec!.volumes!.find((v) => v.name === mountAt(path).name)!;

/**
 * Docker setting (HostConfig key, or container key) → pod field → the check. The same table is in
 * docs/kubernetes.md; the last test checks that every one of these keys is named there.
 */
const TABLE: [docker: string, podField: string, check: () => void][] = [
  [
    'ReadonlyRootfs',
    'containers[].securityContext.readOnlyRootFilesystem',
    () => {
      expect(docker.HostConfig.ReadonlyRootfs).toBe(true);
      expect(container.securityContext!.readOnlyRootFilesystem).toBe(true);
    },
  ],
  [
    'CapDrop',
    'containers[].securityContext.capabilities.drop',
    () => {
      expect(docker.HostConfig.CapDrop).toEqual(['ALL']);
      expect(container.securityContext!.capabilities!.drop).toEqual(['ALL']);
    },
  ],
  [
    'CapAdd',
    'containers[].securityContext.capabilities.add',
    () => {
      expect(container.securityContext!.capabilities!.add).toEqual(docker.HostConfig.CapAdd);
      expect(container.securityContext!.capabilities!.add).toEqual(['SETUID', 'SETGID', 'KILL']);
    },
  ],
  [
    'SecurityOpt',
    'containers[].securityContext.allowPrivilegeEscalation, seccompProfile',
    () => {
      expect(docker.HostConfig.SecurityOpt).toEqual(['no-new-privileges:true']);
      expect(container.securityContext!.allowPrivilegeEscalation).toBe(false);
      expect(container.securityContext!.privileged).toBe(false);
      // Docker applies its default seccomp profile unless told otherwise; RuntimeDefault is that.
      expect(container.securityContext!.seccompProfile).toEqual({ type: 'RuntimeDefault' });
      expect(pod.spec!.securityContext!.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    },
  ],
  [
    'NetworkMode',
    'NetworkPolicy hookbox-sandbox-isolation; hostNetwork',
    () => {
      expect(docker.HostConfig.NetworkMode).toBe('none');
      expect(pod.spec!.hostNetwork).toBe(false);
      const policy = sandboxNetworkPolicy('hookbox', 3128);
      expect(pod.metadata!.labels![LABEL_ROLE]).toBe('sandbox');
      expect(policy.spec!.podSelector!.matchLabels).toEqual({ [LABEL_ROLE]: 'sandbox' });
      expect(policy.spec!.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(policy.spec!.ingress).toEqual([]);
      expect(policy.spec!.egress).toHaveLength(1);
      expect(policy.spec!.egress![0]!.ports).toEqual([{ protocol: 'TCP', port: 3128 }]);
    },
  ],
  [
    'IpcMode',
    'hostIPC',
    () => {
      expect(docker.HostConfig.IpcMode).toBe('private');
      expect(pod.spec!.hostIPC).toBe(false);
      expect(pod.spec!.hostPID).toBe(false);
      expect(pod.spec!.shareProcessNamespace).toBe(false);
    },
  ],
  [
    'Sysctls',
    'securityContext.sysctls',
    () => {
      // No System V or POSIX IPC objects (docs/security.md): the same namespaced settings.
      const sysctls = docker.HostConfig.Sysctls as Record<string, string>;
      expect(sysctls['kernel.shmmni']).toBe('0');
      expect(sysctls['fs.mqueue.queues_max']).toBe('0');
      const podSysctls = Object.fromEntries(
        (pod.spec!.securityContext!.sysctls ?? []).map(({ name, value }) => [name, value]),
      );
      expect(podSysctls).toEqual(sysctls);
    },
  ],
  [
    'Memory',
    'containers[].resources.limits.memory',
    () => {
      expect(docker.HostConfig.Memory).toBe(512 * 1024 * 1024);
      expect(container.resources!.limits!.memory).toBe('512Mi');
    },
  ],
  [
    'MemorySwap',
    'containers[].resources.requests = limits (Guaranteed QoS: no swap)',
    () => {
      expect(docker.HostConfig.MemorySwap).toBe(docker.HostConfig.Memory);
      expect(container.resources!.requests).toEqual(container.resources!.limits);
    },
  ],
  [
    'NanoCpus',
    'containers[].resources.limits.cpu',
    () => {
      expect(docker.HostConfig.NanoCpus).toBe(1.5e9);
      expect(container.resources!.limits!.cpu).toBe('1500m');
    },
  ],
  [
    'PidsLimit',
    'kubelet podPidsLimit (node setting); annotation dev.hookbox.pids-limit',
    () => {
      expect(docker.HostConfig.PidsLimit).toBe(128);
      expect(pod.metadata!.annotations!['dev.hookbox.pids-limit']).toBe('128');
    },
  ],
  [
    'LogConfig',
    "containers[].resources.limits['ephemeral-storage'] (+ kubelet containerLogMaxSize)",
    () => {
      expect(docker.HostConfig.LogConfig).toEqual({
        Type: 'json-file',
        Config: { 'max-size': '1m', 'max-file': '1' },
      });
      expect(container.resources!.limits!['ephemeral-storage']).toBe('64Mi');
    },
  ],
  [
    'Mounts (volume)',
    'volumes[].emptyDir (workspace: sizeLimit), volumeMounts[].readOnly',
    () => {
      expect(volumeOf('/workspace').emptyDir).toEqual({ sizeLimit: '2048Mi' });
      expect(mountAt('/workspace').readOnly).toBe(false);
      expect(mountAt('/.agents').readOnly).toBe(true);
      expect(mountAt('/workspace/.agents').readOnly).toBe(true);
      // The gates the agent writes and the ones tool code sees are one emptyDir, as one Docker volume.
      expect(mountAt('/opt/hookbox/agents-rw').name).toBe(mountAt('/.agents').name);
      expect(mountAt('/opt/hookbox/agents-rw').readOnly).toBe(false);
      const dockerMounts = docker.HostConfig.Mounts as { Target: string; ReadOnly?: boolean }[];
      // The agent's channel socket is Docker's only: a pod's agent is reached on its stdio
      // (docs/agent-protocol.md, "The stream").
      for (const mount of dockerMounts.filter((m) => m.Target !== SANDBOX_PATHS.agentChannel))
        expect(mountAt(mount.Target).readOnly, mount.Target).toBe(mount.ReadOnly ?? false);
      expect(dockerMounts.map((m) => m.Target)).toContain(SANDBOX_PATHS.agentChannel);
      expect(container.volumeMounts!.some((m) => m.mountPath === SANDBOX_PATHS.agentChannel)).toBe(
        false,
      );
    },
  ],
  [
    'Mounts (read-only tmpfs)',
    'volumes[].emptyDir{medium: Memory}, volumeMounts[].readOnly: true',
    () => {
      for (const path of ['/dev/shm', '/dev/mqueue']) {
        expect(mountAt(path).readOnly, path).toBe(true);
        expect(volumeOf(path).emptyDir).toEqual({ medium: 'Memory', sizeLimit: '4Ki' });
      }
    },
  ],
  [
    'Mounts (writable tmpfs)',
    'volumes[].emptyDir{medium: Memory, sizeLimit}',
    () => {
      expect(volumeOf('/tmp').emptyDir).toEqual({ medium: 'Memory', sizeLimit: '64Mi' });
      expect(mountAt('/tmp').readOnly).toBe(false);
    },
  ],
  [
    'Runtime',
    'runtimeClassName',
    () => {
      expect(docker.HostConfig.Runtime).toBe('runsc');
      expect(pod.spec!.runtimeClassName).toBe('gvisor');
    },
  ],
  [
    'User',
    'containers[].securityContext.runAsUser/runAsGroup (the agent; tools and hooks run non-root through it)',
    () => {
      expect(docker.User).toBe('0:0');
      expect(container.securityContext!.runAsUser).toBe(0);
      expect(container.securityContext!.runAsGroup).toBe(0);
    },
  ],
  [
    'Labels',
    'metadata.labels (+ metadata.annotations for values labels cannot hold)',
    () => {
      const all = { ...pod.metadata!.labels, ...pod.metadata!.annotations };
      for (const [key, value] of Object.entries(docker.Labels as Record<string, string>))
        expect(all[key], key).toBe(value);
      expect(pod.metadata!.labels!['dev.hookbox.managed']).toBe('true');
      expect(pod.metadata!.labels!['dev.hookbox.environment']).toBe('env_test');
    },
  ],
  [
    'Hostname',
    'hostname',
    () => {
      expect(pod.spec!.hostname).toBe(docker.Hostname);
    },
  ],
  [
    'OpenStdin, StdinOnce, Tty',
    'containers[].stdin, stdinOnce, tty',
    () => {
      expect([docker.OpenStdin, docker.StdinOnce, docker.Tty]).toEqual([true, false, false]);
      expect([container.stdin, container.stdinOnce, container.tty]).toEqual([true, false, false]);
    },
  ],
  [
    '(no Docker socket or credentials in the container)',
    'automountServiceAccountToken: false, enableServiceLinks: false',
    () => {
      expect(pod.spec!.automountServiceAccountToken).toBe(false);
      expect(pod.spec!.enableServiceLinks).toBe(false);
    },
  ],
];

describe('Docker hardening → pod spec (docs/kubernetes.md, Hardening table)', () => {
  it.each(TABLE.map(([dockerSetting, field, check]) => ({ dockerSetting, field, check })))(
    '$dockerSetting → $field',
    ({ check }) => check(),
  );

  it('every hardening key the Docker backend sets has a row', () => {
    const covered = TABLE.map(([key]) => key).join(' ');
    const keys = [
      ...Object.keys(docker.HostConfig),
      'User',
      'Labels',
      'Hostname',
      'OpenStdin',
      'Tty',
    ];
    for (const key of keys)
      expect(covered, `HostConfig.${key} has no pod counterpart`).toContain(key);
  });

  it('the docs list every row', () => {
    const doc = readFileSync(new URL('../../../docs/kubernetes.md', import.meta.url), 'utf8');
    for (const [key] of TABLE) expect(doc, key).toContain(key);
  });

  it('the pod is valid against the Kubernetes OpenAPI schema', () => {
    expect(() => new Pod(pod as never).validate()).not.toThrow();
  });

  it('a pod without runtime or tmpfs has no runtimeClassName and no /tmp', async () => {
    const plain = sandboxPod(await specFor({}));
    expect(plain.spec!.runtimeClassName).toBeUndefined();
    expect(plain.spec!.containers[0]!.volumeMounts!.map((m) => m.mountPath)).not.toContain('/tmp');
    expect(() => new Pod(plain as never).validate()).not.toThrow();
  });

  it('the validator does catch a wrong pod (so the checks above mean something)', () => {
    const broken = structuredClone(pod);
    (
      broken.spec!.containers[0]!.securityContext as Record<string, unknown>
    ).readOnlyRootFilesystem = 'yes';
    expect(() => new Pod(broken as never).validate()).toThrow(/readOnlyRootFilesystem/);
  });
});

describe('names and labels Kubernetes accepts', () => {
  it('a pod name is DNS-1123, at most 63 characters', () => {
    expect(podName('hookbox-env_AbC_123')).toBe('hookbox-env-abc-123');
    expect(podName(`hookbox-${'x'.repeat(80)}`)).toHaveLength(63);
  });

  it('label values Kubernetes refuses become annotations, the rest stay labels', () => {
    expect(splitLabels({ a: 'true', b: 'pid:[4026531836]', c: '', d: 'x'.repeat(64) })).toEqual({
      labels: { a: 'true', c: '' },
      annotations: { b: 'pid:[4026531836]', d: 'x'.repeat(64) },
    });
  });
});
