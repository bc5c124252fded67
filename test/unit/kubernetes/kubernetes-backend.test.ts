// The Kubernetes backend's parts (docs/kubernetes.md, "What each backend offers"): a runtime only,
// with no method that would answer "not supported", and the refusals a request meets instead.
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubernetesBackend } from '../../../src/cli/kubernetes-backend.js';
import { KubernetesRuntime } from '../../../src/backends/kubernetes/kubernetes-runtime.js';
import { createLogger } from '../../../src/record/logger.js';
import { imagesOf, networksOf } from '../../../src/sandbox/backend.js';
import type { ContainerRuntime } from '../../../src/sandbox/container-runtime.js';
import { DockerBackend } from '../../../src/backends/docker/docker-backend.js';

const logger = createLogger({ level: 'silent' });

function kubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u', namespace: 'hookbox' }],
    currentContext: 'x',
  });
  return config;
}

const methodsOf = (part: object) =>
  Object.getOwnPropertyNames(Object.getPrototypeOf(part)).filter(
    (name) =>
      name !== 'constructor' && typeof (part as Record<string, unknown>)[name] === 'function',
  );

describe('the Kubernetes backend', () => {
  it('is a runtime without an image store or a network store', () => {
    const { backend, image } = kubernetesBackend(
      { sandboxImage: 'registry.example/hookbox/sandbox:1', namespace: 'hookbox' },
      logger,
    );
    expect(image).toBe('registry.example/hookbox/sandbox:1');
    expect(backend.name).toBe('kubernetes');
    expect(backend.runtime).toBeInstanceOf(KubernetesRuntime);
    expect(backend.images).toBeUndefined();
    expect(backend.networks).toBeUndefined();
  });

  it("its runtime has the Docker runtime's required methods and no image or network method", () => {
    const runtime = new KubernetesRuntime(logger, { kubeConfig: kubeConfig() });
    const docker = new DockerBackend(logger, {} as never);
    const kubernetes = methodsOf(runtime);
    const required = methodsOf(docker.runtime).filter(
      (name) =>
        ![
          'runtimes',
          'agentChannelPath',
          'rootFilesystemChanges',
          'waitContainer',
          'volumeSizes',
        ].includes(name),
    );
    expect(kubernetes.filter((name) => required.includes(name)).sort()).toEqual(required.sort());
    for (const name of [...methodsOf(docker.images), ...methodsOf(docker.networks)])
      expect(kubernetes, name).not.toContain(name);
  });

  it('lacks the optional capabilities, so their callers fall back or refuse (snapshots, disk_mb)', () => {
    const runtime: ContainerRuntime = new KubernetesRuntime(logger, { kubeConfig: kubeConfig() });
    expect(runtime.runtimes).toBeUndefined();
    expect(runtime.agentChannelPath).toBeUndefined();
    expect(runtime.rootFilesystemChanges).toBeUndefined();
    expect(runtime.waitContainer).toBeUndefined();
    expect(runtime.volumeSizes).toBeUndefined();
  });

  it('a template or an allowlist on it is a UserError naming the field and the backend', () => {
    const { backend } = kubernetesBackend({ sandboxImage: 'registry.example/s:1' }, logger);
    expect(() => imagesOf(backend, 'template "full"', 'environment.template')).toThrow(
      'environment.template: template "full" needs a backend with an image store; the kubernetes backend has none',
    );
    expect(() => networksOf(backend, 'an allowlist', 'network.allowlist')).toThrow(
      'network.allowlist: an allowlist needs a backend with networks of its own; the kubernetes backend has none',
    );
  });
});
