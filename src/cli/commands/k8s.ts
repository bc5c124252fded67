import { UserError } from '../../errors/index.js';
import { manifestsYaml } from '../../backends/kubernetes/manifests.js';
import {
  checkImageReference,
  checkNamespace,
  checkObjectName,
} from '../../backends/kubernetes/object-names.js';
import type { CliIo } from '../io.js';

export interface K8sManifestsOptions {
  namespace?: string;
  controllerImage: string;
  sandboxImage: string;
  replicas?: string;
  secret?: string;
  gvisorRuntimeClass?: string;
}

function parseReplicas(value: string | undefined): number {
  if (value === undefined) return 2;
  const replicas = Number(value);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 100)
    throw new UserError(
      'invalid_argument',
      `--replicas: must be a whole number from 1 to 100 (got ${JSON.stringify(value)})`,
      { details: { field: '--replicas' } },
    );
  return replicas;
}

/** `hookbox k8s manifests`: the deployment's objects as YAML (docs/kubernetes.md). */
export async function k8sManifestsCommand(
  options: K8sManifestsOptions,
  io: CliIo,
): Promise<number> {
  io.stdout(
    manifestsYaml({
      controllerImage: checkImageReference('--controller-image', options.controllerImage),
      sandboxImage: checkImageReference('--sandbox-image', options.sandboxImage),
      replicas: parseReplicas(options.replicas),
      ...(options.namespace !== undefined
        ? { namespace: checkNamespace('--namespace', options.namespace) }
        : {}),
      ...(options.secret !== undefined
        ? { secretName: checkObjectName('--secret', options.secret) }
        : {}),
      ...(options.gvisorRuntimeClass !== undefined
        ? {
            gvisorRuntimeClass: checkObjectName(
              '--gvisor-runtime-class',
              options.gvisorRuntimeClass,
            ),
          }
        : {}),
    }),
  );
  return 0;
}

/** `--runtime-class runsc=gvisor` (repeatable) as a map from runtime to RuntimeClass name. */
export function parseRuntimeClasses(values: string[] | undefined): Record<string, string> {
  const classes: Record<string, string> = {};
  for (const value of values ?? []) {
    const match = /^([a-z0-9][a-z0-9._-]*)=([a-z0-9][a-z0-9.-]*)$/.exec(value);
    if (!match)
      throw new UserError(
        'invalid_argument',
        `--runtime-class: must be RUNTIME=CLASS, e.g. runsc=gvisor (got ${JSON.stringify(value)})`,
        { details: { field: '--runtime-class' } },
      );
    classes[match[1]!] = match[2]!;
  }
  return classes;
}
