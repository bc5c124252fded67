import { UserError } from '../errors/index.js';
import { KubernetesRuntime } from '../backends/kubernetes/kubernetes-runtime.js';
import { checkImageReference, checkNamespace } from '../backends/kubernetes/object-names.js';
import type { Logger } from '../record/logger.js';
import type { Backend } from '../sandbox/backend.js';
import { parseRuntimeClasses } from './commands/k8s.js';

// Loaded only for `--backend kubernetes` (the Kubernetes client is large; other commands skip it).

export interface KubernetesServeOptions {
  namespace?: string;
  sandboxImage?: string;
  runtimeClass?: string[];
}

/**
 * The Kubernetes backend for `hookbox serve --backend kubernetes` and its image: a runtime only, no
 * image or network store (docs/kubernetes.md, "What each backend offers").
 */
export function kubernetesBackend(
  options: KubernetesServeOptions,
  logger: Logger,
): { backend: Backend; image: string } {
  if (!options.sandboxImage)
    throw new UserError(
      'invalid_argument',
      '--sandbox-image: required with --backend kubernetes (the sandbox image as the nodes pull it)',
      { details: { field: '--sandbox-image' } },
    );
  const runtime = new KubernetesRuntime(logger, {
    ...(options.namespace !== undefined
      ? { namespace: checkNamespace('--namespace', options.namespace) }
      : {}),
    runtimeClasses: parseRuntimeClasses(options.runtimeClass),
  });
  return {
    backend: { name: 'kubernetes', runtime },
    image: checkImageReference('--sandbox-image', options.sandboxImage),
  };
}
