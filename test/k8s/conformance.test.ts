// The Kubernetes backend against a real cluster (`npm run test:k8s`, docs/kubernetes.md): the core
// of the integration suite — a gated environment in a pod, the agent stream over attach, the
// hardening as the container sees it, reaping by label. Runs only where KUBECONFIG names a cluster.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Environment } from '../../src/controller/environment.js';
import { KubernetesRuntime } from '../../src/backends/kubernetes/kubernetes-runtime.js';
import { createLogger } from '../../src/record/logger.js';
import { LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { execResultOf } from '../../src/tools/results.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const image = process.env.HOOKBOX_K8S_SANDBOX_IMAGE!;
const namespace = process.env.HOOKBOX_K8S_NAMESPACE ?? 'hookbox';
const runtime = process.env.HOOKBOX_K8S_RUNTIME;
const GATE = `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`;

let client: KubernetesRuntime;
let controller: Controller;
let env: Environment;

const bash = (code: string) => ({ name: 'code_execution', args: { code } });

async function run(code: string) {
  const outcome = await env.call(bash(code));
  expect(outcome.blocked).toBe(false);
  return execResultOf(outcome);
}

beforeAll(async () => {
  client = new KubernetesRuntime(logger, {
    namespace,
    ...(runtime ? { runtimeClasses: { runsc: runtime } } : {}),
  });
  controller = await Controller.start({
    backend: { name: 'kubernetes', runtime: client },
    logger,
    image,
    startEngine: false,
    home: mkdtempSync(join(tmpdir(), 'hookbox-k8s-')),
    ...(runtime ? { runtime: 'runsc' } : {}),
  });
  env = await controller.createEnvironment({
    vocabulary: '2026-05',
    sources: [
      {
        type: 'inline',
        target: '.agents/hooks.json',
        content: JSON.stringify({
          gates: {
            pre_tool_execution: [{ hooks: [{ type: 'command', command: '.agents/gate.sh' }] }],
          },
        }),
      },
      { type: 'inline', target: '.agents/gate.sh', content: GATE },
    ],
  });
});
afterAll(async () => {
  await controller?.close();
});

describe('Kubernetes backend conformance', () => {
  it('runs tool code in the pod through the attach stream', async () => {
    expect((await run('echo hello')).stdout).toBe('hello\n');
  });

  it('a deny from the gate blocks the call', async () => {
    const outcome = await env.call(bash('echo FORBIDDEN'));
    expect([outcome.blocked, outcome.reason]).toEqual([true, 'forbidden word']);
  });

  it('tool code is uid 1000 with no capabilities, no_new_privs, seccomp on', async () => {
    const out = await run('id -u; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status');
    expect(out.stdout).toBe('1000\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n');
  });

  it('the root, /.agents and the hook state dir are out of reach; /workspace is writable', async () => {
    const out = await run(
      'for d in / /etc /.agents /workspace/.agents /dev/shm /var/lib/hookbox/state; do touch $d/x 2>/dev/null && echo "$d writable"; done; touch /workspace/x && echo ok',
    );
    expect(out.stdout).toBe('ok\n');
  });

  it('no service account token and no service links in the pod', async () => {
    const out = await run(
      'ls /var/run/secrets/kubernetes.io 2>&1 | head -1; env | grep -c _SERVICE_HOST || true',
    );
    expect(out.stdout).toMatch(/No such file or directory\n0\n$/);
  });

  it('the pod is labelled for reaping and goes with the environment', async () => {
    const pods = await client.listContainers([LABEL_MANAGED]);
    expect(pods.map((pod) => pod.id)).toContain(env.sandbox.containerId);
    const id = env.sandbox.containerId;
    await controller.deleteEnvironment(env.id);
    for (let i = 0; i < 120 && (await client.inspectContainer(id)); i++)
      await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await client.inspectContainer(id)).toBeUndefined();
  });
});
