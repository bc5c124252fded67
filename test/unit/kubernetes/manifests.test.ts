// `hookbox k8s manifests`: every object valid against the Kubernetes OpenAPI schemas
// (kubernetes-models), RBAC no wider than the backend needs, ≥ 2 replicas on shared state.
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { RuntimeClass } from 'kubernetes-models/node.k8s.io/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { Namespace, Service, ServiceAccount } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import type { V1Container } from '@kubernetes/client-node';
import {
  manifests,
  manifestsYaml,
  SECRET_KEY_ENTRY,
} from '../../../src/backends/kubernetes/manifests.js';

const VALIDATORS: Record<string, new (data: never) => { validate(): void }> = {
  Namespace,
  ServiceAccount,
  Role,
  RoleBinding,
  NetworkPolicy,
  Deployment,
  Service,
  RuntimeClass,
};

const options = {
  controllerImage: 'registry.example/hookbox/controller:1',
  sandboxImage: 'registry.example/hookbox/sandbox:1',
  gvisorRuntimeClass: 'gvisor',
};

describe('hookbox k8s manifests', () => {
  const objects = manifests(options);

  it('prints every kind the deployment needs', () => {
    expect(objects.map((o) => o.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'Role',
      'RoleBinding',
      'NetworkPolicy',
      'Deployment',
      'Service',
      'RuntimeClass',
    ]);
  });

  it.each(objects.map((object) => [object.kind!, object] as const))(
    '%s is valid against the Kubernetes OpenAPI schema',
    (kind, object) => {
      const Model = VALIDATORS[kind]!;
      expect(() => new Model(object as never).validate()).not.toThrow();
    },
  );

  it('the YAML stream parses back to the same objects', () => {
    const parsed = parseAllDocuments(manifestsYaml(options)).map((doc) => doc.toJS() as unknown);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(objects)));
  });

  it('RBAC: pods and pods/attach in its namespace, no secrets, no cluster role, no wildcard', () => {
    const role = objects.find((o) => o.kind === 'Role') as unknown as {
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
      metadata: { namespace: string };
    };
    expect(role.metadata.namespace).toBe('hookbox');
    expect(role.rules.flatMap((r) => r.resources).sort()).toEqual(['pods', 'pods/attach']);
    expect(role.rules.flatMap((r) => [...r.verbs, ...r.apiGroups, ...r.resources])).not.toContain(
      '*',
    );
    expect(objects.map((o) => o.kind)).not.toContain('ClusterRole');
    expect(role.rules.find((r) => r.resources.includes('pods'))!.verbs).not.toContain('update');
  });

  it('the Deployment runs two replicas of serve on the Kubernetes backend and PostgreSQL', () => {
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { replicas: number; template: { spec: { containers: { args: string[] }[] } } };
    };
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    const args = deployment.spec.template.spec.containers[0]!.args.join(' ');
    expect(args).toContain('--backend kubernetes');
    expect(args).toContain('--state-url $(HOOKBOX_STATE_URL)');
    expect(args).toContain('--runtime runsc --runtime-class runsc=gvisor');
  });

  it('the controller gets HOOKBOX_SECRET_KEY from the Secret, and is ready when /healthz answers', () => {
    const container = (
      objects.find((o) => o.kind === 'Deployment') as unknown as {
        spec: { template: { spec: { containers: V1Container[] } } };
      }
    ).spec.template.spec.containers[0]!;
    // Without the key no credential can be stored or used (docs/credentials.md); every replica
    // reads the same one, so a credential stored through one opens on the others.
    const fromSecret = Object.fromEntries(
      (container.env ?? []).map((entry) => [entry.name, entry.valueFrom?.secretKeyRef]),
    );
    expect(fromSecret.HOOKBOX_SECRET_KEY).toEqual({ name: 'hookbox', key: SECRET_KEY_ENTRY });
    expect(fromSecret.HOOKBOX_STATE_URL?.name).toBe('hookbox');
    const named = manifests({ ...options, secretName: 'prod-hookbox' });
    const namedEnv = (
      named.find((o) => o.kind === 'Deployment') as unknown as {
        spec: { template: { spec: { containers: V1Container[] } } };
      }
    ).spec.template.spec.containers[0]!.env!;
    expect(namedEnv.find((entry) => entry.name === 'HOOKBOX_SECRET_KEY')!.valueFrom).toEqual({
      secretKeyRef: { name: 'prod-hookbox', key: SECRET_KEY_ENTRY },
    });
    // An HTTP probe of the keyless /healthz on the API's named port, not a bare TCP connect.
    expect(container.readinessProbe?.tcpSocket).toBeUndefined();
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.ports).toContainEqual({ name: 'http', containerPort: 8080 });
    // No secret value is in the YAML: the Secret is referenced, never printed.
    expect(objects.map((o) => o.kind)).not.toContain('Secret');
  });

  it('the RuntimeClass maps to the runsc handler; none without gVisor', () => {
    const runtimeClass = objects.find((o) => o.kind === 'RuntimeClass') as unknown as {
      handler: string;
    };
    expect(runtimeClass.handler).toBe('runsc');
    const plain = manifests({ ...options, gvisorRuntimeClass: undefined });
    expect(plain.map((o) => o.kind)).not.toContain('RuntimeClass');
  });

  it('the validator refuses a broken object (so the checks above mean something)', () => {
    const deployment = structuredClone(objects.find((o) => o.kind === 'Deployment')!) as never as {
      spec: { replicas: unknown };
    };
    deployment.spec.replicas = 'two';
    expect(() => new Deployment(deployment as never).validate()).toThrow(/replicas/);
  });
});
