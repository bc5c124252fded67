// Where sandboxes run: a backend is a container runtime, and optionally an image store and a network
// store, each offered whole or not at all (docs/kubernetes.md, "What each backend offers").
import { UserError } from '../errors/index.js';
import type { ContainerRuntime } from './container-runtime.js';
import type { ImageStore } from './image-store.js';
import type { NetworkStore } from './network-store.js';

export interface Backend {
  /** Its name in messages: `docker`, `kubernetes`. */
  readonly name: string;
  /** Containers, volumes, the agent's stdio: every backend has them. */
  readonly runtime: ContainerRuntime;
  /** Building and naming images (templates, `hookbox image build`); absent where images are pulled. */
  readonly images?: ImageStore;
  /** Internal networks and addresses on them (per-environment allowlists); absent where not offered. */
  readonly networks?: NetworkStore;
}

/**
 * An engine with every part in one object: the shape of the Docker engine's API, and of a stand-in
 * that implements all of it. {@link backendOf} makes it a {@link Backend}.
 */
export type ContainerClient = ContainerRuntime & ImageStore & NetworkStore;

/** A backend whose every part is the one client. */
export function backendOf(name: string, client: ContainerClient): Required<Backend> {
  return { name, runtime: client, images: client, networks: client };
}

function lacking(backend: Backend, part: string, use: string, field: string): UserError {
  return new UserError(
    'unsupported',
    `${field}: ${use} needs a backend with ${part}; the ${backend.name} backend has none (docs/kubernetes.md, "What each backend offers")`,
    { details: { field, backend: backend.name } },
  );
}

/** The backend's image store, or a UserError naming `field` and what needed it. */
export function imagesOf(backend: Backend, use: string, field: string): ImageStore {
  if (!backend.images) throw lacking(backend, 'an image store', use, field);
  return backend.images;
}

/** The backend's network store, or a UserError naming `field` and what needed it. */
export function networksOf(backend: Backend, use: string, field: string): NetworkStore {
  if (!backend.networks) throw lacking(backend, 'networks of its own', use, field);
  return backend.networks;
}
