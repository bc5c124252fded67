// The Docker backend: a Docker engine through dockerode, every part offered (runtime, images,
// networks; docs/kubernetes.md, "What each backend offers"). Every engine call is logged.
import Docker from 'dockerode';
import type { Logger } from '../../record/logger.js';
import type { Backend } from '../../sandbox/backend.js';
import { loggedEngineCall } from './docker-engine-call.js';
import { DockerImages } from './docker-images.js';
import { DockerNetworks } from './docker-networks.js';
import { DockerRuntime } from './docker-runtime.js';

export class DockerBackend implements Required<Backend> {
  readonly name = 'docker';
  readonly docker: Docker;
  readonly runtime: DockerRuntime;
  readonly images: DockerImages;
  readonly networks: DockerNetworks;

  /** `docker`: the engine's client. @default dockerode on DOCKER_HOST or the default socket */
  constructor(logger: Logger, docker?: Docker) {
    this.docker = docker ?? new Docker();
    const call = loggedEngineCall(logger);
    this.runtime = new DockerRuntime(this.docker, call);
    this.images = new DockerImages(this.docker, call);
    this.networks = new DockerNetworks(this.docker, call);
  }
}
