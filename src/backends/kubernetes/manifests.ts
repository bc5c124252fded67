import type {
  KubernetesObject,
  V1Deployment,
  V1Namespace,
  V1NetworkPolicy,
  V1Role,
  V1RoleBinding,
  V1RuntimeClass,
  V1Service,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { SECRET_KEY_VARIABLE } from '../../credentials/secret-key.js';
import { LABEL_ROLE } from '../../sandbox/labels.js';
import { KUBERNETES_DEFAULTS } from './pod-spec.js';

/** What `hookbox k8s manifests` prints, for these options (docs/kubernetes.md). */
export interface ManifestOptions {
  /** @default 'hookbox' */
  namespace?: string;
  /** The controller image (`hookbox image controller`, pushed to a registry the nodes pull from). */
  controllerImage: string;
  /** The sandbox image, as the nodes pull it. */
  sandboxImage: string;
  /** Controller replicas behind the Service; they share state through PostgreSQL. @default 2 */
  replicas?: number;
  /**
   * The Secret holding `url` (the PostgreSQL URL), `api-keys` and `secret-key` (the
   * `HOOKBOX_SECRET_KEY` that seals stored credentials; docs/credentials.md). Made by the operator,
   * never printed here, so no secret is in the YAML (docs/kubernetes.md). @default 'hookbox'
   */
  secretName?: string;
  /** A RuntimeClass for gVisor (handler `runsc`) and sandboxes that use it. @default undefined */
  gvisorRuntimeClass?: string;
  /** Port of the egress proxy Service, the one place sandbox pods may reach. @default 3128 */
  egressProxyPort?: number;
}

export const CONTROLLER_NAME = 'hookbox-controller';
const APP_LABEL = 'app.kubernetes.io/name';
const API_PORT = 8080;
/** The key of the Secret that holds `HOOKBOX_SECRET_KEY`. */
export const SECRET_KEY_ENTRY = 'secret-key';

/** The controller's RBAC: pods in its own namespace, and attaching to them. Nothing else. */
export function controllerRole(namespace: string): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: CONTROLLER_NAME, namespace },
    rules: [
      {
        apiGroups: [''],
        resources: ['pods'],
        verbs: ['create', 'get', 'list', 'watch', 'delete'],
      },
      // The agent stream is the attach websocket (POST/GET on pods/attach).
      { apiGroups: [''], resources: ['pods/attach'], verbs: ['create', 'get'] },
    ],
  };
}

/**
 * Sandbox pods: no ingress at all, and egress only to the egress proxy (docs/network.md); with no
 * proxy running, nothing. Docker's counterpart is network `none` / an internal network.
 */
export function sandboxNetworkPolicy(namespace: string, egressProxyPort: number): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'hookbox-sandbox-isolation', namespace },
    spec: {
      podSelector: { matchLabels: { [LABEL_ROLE]: 'sandbox' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [
        {
          to: [{ podSelector: { matchLabels: { [APP_LABEL]: 'hookbox-egress-proxy' } } }],
          ports: [{ protocol: 'TCP', port: egressProxyPort }],
        },
      ],
    },
  };
}

/** Every object of a deployment, in the order `kubectl apply -f` wants them. */
export function manifests(options: ManifestOptions): KubernetesObject[] {
  const namespace = options.namespace ?? KUBERNETES_DEFAULTS.namespace;
  const replicas = options.replicas ?? 2;
  const secretName = options.secretName ?? 'hookbox';
  const labels = { [APP_LABEL]: CONTROLLER_NAME };
  const ns: V1Namespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: namespace,
      // Pod Security admission: privileged pods are refused outright in this namespace.
      labels: { 'pod-security.kubernetes.io/enforce': 'baseline' },
    },
  };
  const serviceAccount: V1ServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: CONTROLLER_NAME, namespace },
  };
  const binding: V1RoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: CONTROLLER_NAME, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CONTROLLER_NAME },
    subjects: [{ kind: 'ServiceAccount', name: CONTROLLER_NAME, namespace }],
  };
  const args = [
    'serve',
    '--backend',
    'kubernetes',
    '--namespace',
    namespace,
    '--sandbox-image',
    options.sandboxImage,
    '--host',
    '0.0.0.0',
    '--port',
    String(API_PORT),
    '--state-url',
    '$(HOOKBOX_STATE_URL)',
    ...(options.gvisorRuntimeClass
      ? ['--runtime', 'runsc', '--runtime-class', `runsc=${options.gvisorRuntimeClass}`]
      : []),
  ];
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CONTROLLER_NAME, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: CONTROLLER_NAME,
          containers: [
            {
              name: 'controller',
              image: options.controllerImage,
              args,
              ports: [{ name: 'http', containerPort: API_PORT }],
              env: [
                {
                  name: 'HOOKBOX_STATE_URL',
                  valueFrom: { secretKeyRef: { name: secretName, key: 'url' } },
                },
                {
                  name: 'HOOKBOX_API_KEYS',
                  valueFrom: { secretKeyRef: { name: secretName, key: 'api-keys' } },
                },
                // Every replica must seal and open credentials with the same key, or a credential
                // stored through one replica is unusable on the others (docs/credentials.md).
                {
                  name: SECRET_KEY_VARIABLE,
                  valueFrom: { secretKeyRef: { name: secretName, key: SECRET_KEY_ENTRY } },
                },
              ],
              // Ready when the API answers, not when the port is merely open: /healthz is keyless
              // and runs no code (docs/operations.md).
              readinessProbe: {
                httpGet: { path: '/healthz', port: 'http' },
                periodSeconds: 5,
              },
              securityContext: {
                runAsNonRoot: true,
                runAsUser: 1000,
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              volumeMounts: [{ name: 'home', mountPath: '/home/hookbox' }],
            },
          ],
          volumes: [{ name: 'home', emptyDir: {} }],
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'hookbox', namespace, labels },
    spec: { selector: labels, ports: [{ name: 'http', port: API_PORT, targetPort: 'http' }] },
  };
  const objects: KubernetesObject[] = [
    ns,
    serviceAccount,
    controllerRole(namespace),
    binding,
    sandboxNetworkPolicy(namespace, options.egressProxyPort ?? 3128),
    deployment,
    service,
  ];
  if (options.gvisorRuntimeClass) {
    const runtimeClass: V1RuntimeClass = {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: options.gvisorRuntimeClass },
      handler: 'runsc',
    };
    objects.push(runtimeClass);
  }
  return objects;
}

/** The objects as one multi-document YAML stream. */
export function manifestsYaml(options: ManifestOptions): string {
  return manifests(options)
    .map((object) => stringify(object))
    .join('---\n');
}
