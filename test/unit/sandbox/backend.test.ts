// The backend parts (docs/kubernetes.md, "What each backend offers"): a runtime every backend has,
// images and networks offered whole or not at all, and what callers do with a backend that lacks
// one. Pure logic: stand-in runtimes record what is asked of them; Docker's parts are checked over a
// stand-in for dockerode (test/integration drives the real engine through every caller).
import { describe, expect, it } from 'vitest';
import { reapOrphans } from '../../../src/controller/reaper.js';
import { makeSandbox } from '../../../src/controller/controller-sandboxes.js';
import { UserError } from '../../../src/errors/errors.js';
import type { Allowlist } from '../../../src/network/allowlist.js';
import { createLogger } from '../../../src/record/logger.js';
import {
  backendOf,
  imagesOf,
  networksOf,
  type Backend,
  type ContainerClient,
} from '../../../src/sandbox/backend.js';
import type { ContainerRuntime } from '../../../src/sandbox/container-runtime.js';
import { DockerBackend } from '../../../src/backends/docker/docker-backend.js';
import type { ImageStore } from '../../../src/sandbox/image-store.js';
import { LABEL_ENVIRONMENT, ownershipLabels } from '../../../src/sandbox/labels.js';
import type { NetworkStore } from '../../../src/sandbox/network-store.js';
import { Templates } from '../../../src/templates/templates.js';

const logger = createLogger({ level: 'silent' });

/** Every method of each part (the compiler refuses a name that is not one, or a part left out). */
const RUNTIME = [
  'ping',
  'createVolume',
  'removeVolume',
  'createContainer',
  'startContainer',
  'attach',
  'inspectContainer',
  'removeContainer',
  'listContainers',
  'listVolumes',
] as const satisfies readonly (keyof ContainerRuntime)[];
const RUNTIME_OPTIONAL = [
  'runtimes',
  'agentChannelPath',
  'rootFilesystemChanges',
  'waitContainer',
  'volumeSizes',
] as const satisfies readonly (keyof ContainerRuntime)[];
const IMAGES = [
  'imageLabels',
  'buildImage',
  'inspectImage',
  'listImages',
  'tagImage',
  'removeImage',
] as const satisfies readonly (keyof ImageStore)[];
const NETWORKS = [
  'createNetwork',
  'removeNetwork',
  'listNetworks',
  'containerAddress',
] as const satisfies readonly (keyof NetworkStore)[];
type Covered<T, Listed> = Exclude<keyof T, Listed> extends never ? true : false;
const allListed: [
  Covered<ContainerRuntime, (typeof RUNTIME)[number] | (typeof RUNTIME_OPTIONAL)[number]>,
  Covered<ImageStore, (typeof IMAGES)[number]>,
  Covered<NetworkStore, (typeof NETWORKS)[number]>,
] = [true, true, true];

/** A runtime that has only what a test gives it, and records every call. */
function runtimeWith(methods: Partial<ContainerRuntime>, calls: string[] = []): ContainerRuntime {
  return new Proxy(methods as ContainerRuntime, {
    get(target, name: string) {
      const method = (target as unknown as Record<string, unknown>)[name];
      if (typeof method !== 'function') return method;
      return (...args: unknown[]) => {
        calls.push(name);
        return (method as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
}

describe('the parts of a backend', () => {
  it('the lists above name every method of the three interfaces', () => {
    expect(allListed).toEqual([true, true, true]);
    const all = [...RUNTIME, ...RUNTIME_OPTIONAL, ...IMAGES, ...NETWORKS];
    expect(new Set(all).size).toBe(all.length);
  });

  it('the Docker backend offers every part, each with every method (optional ones too)', () => {
    const docker = new DockerBackend(logger, {} as never);
    expect(docker.name).toBe('docker');
    for (const name of [...RUNTIME, ...RUNTIME_OPTIONAL])
      expect(typeof docker.runtime[name], `runtime.${name}`).toBe('function');
    for (const name of IMAGES)
      expect(typeof docker.images[name], `images.${name}`).toBe('function');
    for (const name of NETWORKS)
      expect(typeof docker.networks[name], `networks.${name}`).toBe('function');
  });

  it("each Docker part has its own part's methods only (no image or network method on the runtime)", () => {
    const docker = new DockerBackend(logger, {} as never);
    const methodsOf = (part: object) =>
      Object.getOwnPropertyNames(Object.getPrototypeOf(part)).filter(
        (name) => name !== 'constructor',
      );
    expect(methodsOf(docker.runtime).sort()).toEqual([...RUNTIME, ...RUNTIME_OPTIONAL].sort());
    expect(methodsOf(docker.images).sort()).toEqual([...IMAGES].sort());
    expect(methodsOf(docker.networks).sort()).toEqual([...NETWORKS].sort());
  });

  it('backendOf makes one client with every method a backend of every part', () => {
    const client = {} as ContainerClient;
    const backend = backendOf('stand-in', client);
    expect(backend).toEqual({
      name: 'stand-in',
      runtime: client,
      images: client,
      networks: client,
    });
    expect(backend.images).toBe(client);
  });
});

describe('a backend without images or networks', () => {
  const bare: Backend = { name: 'bare', runtime: runtimeWith({}) };

  it('imagesOf and networksOf give the part when the backend has it', () => {
    const client = {} as ContainerClient;
    const full = backendOf('full', client);
    expect(imagesOf(full, 'a template', 'template')).toBe(client);
    expect(networksOf(full, 'an allowlist', 'network.allowlist')).toBe(client);
  });

  it('imagesOf refuses with a UserError naming the field, the use and the backend', () => {
    const error = (() => {
      try {
        imagesOf(bare, 'building the template full', 'template');
      } catch (caught) {
        return caught;
      }
    })() as UserError;
    expect(error).toBeInstanceOf(UserError);
    expect([error.code, error.details]).toEqual([
      'unsupported',
      { field: 'template', backend: 'bare' },
    ]);
    expect(error.message).toBe(
      'template: building the template full needs a backend with an image store; the bare backend has none (docs/kubernetes.md, "What each backend offers")',
    );
  });

  it('networksOf refuses with a UserError naming the field', () => {
    expect(() => networksOf(bare, 'an allowlist', 'network.allowlist')).toThrow(
      /^network\.allowlist: an allowlist needs a backend with networks of its own; the bare backend has none/,
    );
  });

  it('an environment with an allowlist is refused before the backend is asked for anything', async () => {
    const calls: string[] = [];
    const backend: Backend = { name: 'bare', runtime: runtimeWith({}, calls) };
    const made = makeSandbox(
      {
        backend,
        logger,
        identity: { id: 'ctl_test', pid: 1 },
        home: '/nonexistent',
        image: 'hookbox/sandbox:test',
        runtime: 'runc',
        egressSettings: undefined,
      },
      'env_test',
      [],
      undefined,
      { allowlist: {} as Allowlist, onRecord: () => {} },
    );
    await expect(made).rejects.toMatchObject({
      code: 'unsupported',
      details: { field: 'network.allowlist', backend: 'bare' },
    });
    expect(calls).toEqual([]);
  });

  it('templates: only default is known, default resolves, any other name is refused naming the field', async () => {
    const templates = new Templates(bare, logger, 'hookbox/sandbox:test');
    expect(await templates.known()).toEqual(['default']);
    expect(await templates.resolve(undefined)).toBe('hookbox/sandbox:test');
    expect(await templates.resolve('default')).toBe('hookbox/sandbox:test');
    await expect(templates.resolve('full', 'environment.template')).rejects.toMatchObject({
      code: 'unsupported',
      details: { field: 'environment.template', backend: 'bare' },
    });
  });

  it('reaping removes orphan containers and volumes and looks for no networks', async () => {
    const calls: string[] = [];
    const labels = ownershipLabels('env_orphan', 'sandbox', { id: 'ctl_gone', pid: 1 });
    const removed: string[] = [];
    const runtime = runtimeWith(
      {
        listContainers: async () => [{ id: 'c1', name: 'pod-1', state: 'exited', labels }],
        removeContainer: async (id: string) => void removed.push(id),
        listVolumes: async () => [
          { name: 'v1', labels: { ...labels, [LABEL_ENVIRONMENT]: 'env_other' } },
        ],
        removeVolume: async (name: string) => void removed.push(name),
      },
      calls,
    );
    const result = await reapOrphans({ name: 'bare', runtime }, () => true);
    expect(result).toEqual({
      containers: [{ name: 'pod-1', environmentId: 'env_orphan' }],
      volumes: ['v1'],
      networks: [],
    });
    expect(removed).toEqual(['c1', 'v1']);
    expect(calls.filter((name) => !name.startsWith('list'))).toEqual([
      'removeContainer',
      'removeVolume',
    ]);
  });
});
