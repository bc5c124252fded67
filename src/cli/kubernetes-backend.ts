import { UserError } from '../errors/index.js';
import { KubernetesContainerClient } from '../backends/kubernetes/kubernetes-container-client.js';
import { checkImageReference, checkNamespace } from '../backends/kubernetes/object-names.js';
import type { Logger } from '../record/logger.js';
import { parseRuntimeClasses } from './commands/k8s.js';

// Loaded only for `--backend kubernetes` (the Kubernetes client is large; other commands skip it).

export interface KubernetesServeOptions {
  namespace?: string;
  sandboxImage?: string;
  runtimeClass?: string[];
}

/** The Kubernetes backend for `hookbox serve --backend kubernetes`: its client and image. */
export function kubernetesBackend(
  options: KubernetesServeOptions,
  logger: Logger,
): { client: KubernetesContainerClient; image: string } {
  if (!options.sandboxImage)
    throw new UserError(
      'invalid_argument',
      '--sandbox-image: required with --backend kubernetes (the sandbox image as the nodes pull it)',
      { details: { field: '--sandbox-image' } },
    );
  const client = new KubernetesContainerClient(logger, {
    ...(options.namespace !== undefined
      ? { namespace: checkNamespace('--namespace', options.namespace) }
      : {}),
    runtimeClasses: parseRuntimeClasses(options.runtimeClass),
  });
  return { client, image: checkImageReference('--sandbox-image', options.sandboxImage) };
}
