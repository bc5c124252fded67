// Network modes (docs/environments.md, "Network modes") against real containers: the rules of a live
// environment replaced over HTTP take effect on the next call, a call in flight keeps its rules,
// refusals are recorded, and an environment made without a network cannot be given one. The
// "outside" is an HTTP server on 127.0.0.1, reached only through the proxy's test name overrides.
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookbox, HookboxApiError } from '../../src/client/index.js';
import { Controller } from '../../src/controller/controller.js';
import type { Environment } from '../../src/controller/environment.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';
import { apiErrorOf } from './api-error.js';
import { rejectionOf } from './rejection.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const KEY = 'network-modes-key';

let upstream: Server;
let port: number;
let server: RunningServer;
let client: Hookbox;
let environment: Environment;

beforeAll(async () => {
  upstream = createServer((req, res) => res.end(`page of ${req.headers.host}`));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  port = (upstream.address() as AddressInfo).port;
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-netmodes-')),
    logger,
    startEngine: false,
    egress: {
      // Test configuration only: these names lead to the server above.
      testing: {
        trustedUpstreams: { 'first.hookbox.test': '127.0.0.1', 'second.hookbox.test': '127.0.0.1' },
      },
    },
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0, // An admin key: the environments here are the library's, owned by no tenant (docs/tenants.md).
    apiKeys: [],
    tenantKeys: [
      { name: 'ops', role: 'admin', digest: keyDigest(KEY), quotas: DEFAULT_TENANT_QUOTAS },
    ],
    logger,
    controller,
  });
  client = new Hookbox({ baseUrl: server.url, apiKey: KEY });
  environment = await controller.createEnvironment({
    network: { allowlist: [{ domain: 'first.hookbox.test' }] },
  });
});
afterAll(async () => {
  await server?.close();
  upstream?.close();
});

/** Tool code fetching a URL through HTTP_PROXY: the status, or the proxy's refusal. With a delay,
 * it writes "waiting" to stderr first, so a test knows the call is in flight. */
const fetchCall = (host: string, delaySeconds = 0) => ({
  name: 'code_execution',
  args: {
    language: 'python',
    code: `
import sys, time, urllib.request, urllib.error
if ${delaySeconds}:
    print("waiting", file=sys.stderr, flush=True)
    time.sleep(${delaySeconds})
try:
    print(urllib.request.urlopen("http://${host}:${port}/", timeout=10).status)
except urllib.error.HTTPError as error:
    print(error.code)
`,
  },
});
import { execResultOf } from '../../src/tools/results.js';

const statusOf = async (host: string) =>
  execResultOf(await environment.call(fetchCall(host))).stdout.trim();

describe('PATCH …/network', () => {
  it('replaces the rules for the next call, records refusals, and never shows transform values', async () => {
    expect(await statusOf('first.hookbox.test')).toBe('200');
    expect(await statusOf('second.hookbox.test')).toBe('403');

    const answer = await client.environments.network.set(environment.id, {
      allowlist: [{ domain: 'second.hookbox.test', transform: { 'X-Token': 'never-shown-123' } }],
    });
    expect(answer).toEqual({
      environment_id: environment.id,
      network: { allowlist: [{ domain: 'second.hookbox.test' }] },
    });
    expect(JSON.stringify(await client.environments.network.get(environment.id))).not.toContain(
      'never-shown-123',
    );
    expect(await statusOf('second.hookbox.test')).toBe('200');
    expect(await statusOf('first.hookbox.test')).toBe('403');

    const records = environment.records();
    expect(records.filter((e) => e.kind === 'egress').at(-1)).toMatchObject({
      decision: 'refused',
      rule: 'allowlist',
      target: `first.hookbox.test:${port}/`,
    });
    const replaced = records.filter(
      (e) => e.kind === 'environment' && e.event === 'network_replaced',
    );
    expect(replaced).toHaveLength(1);
    expect(JSON.stringify(records)).not.toContain('never-shown-123');
  });

  it('a call in flight keeps the rules it started with; "disabled" refuses everything after', async () => {
    await client.environments.network.set(environment.id, {
      allowlist: [{ domain: 'first.hookbox.test' }],
    });
    // The call sleeps 1 s before it connects; the PATCH sent meanwhile waits for it to end.
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const inFlight = environment.call(fetchCall('first.hookbox.test', 1), { onStderr: running });
    await started;
    const patched = client.environments.network.set(environment.id, 'disabled');
    expect(execResultOf(await inFlight).stdout.trim()).toBe('200');
    expect((await patched).network).toBe('disabled');
    expect(await statusOf('first.hookbox.test')).toBe('403');
  });

  it('refuses bad rules (400 naming the field) and a network for an environment made without one (409)', async () => {
    const bad = await fetch(`${server.url}/v1beta/environments/${environment.id}/network`, {
      method: 'PATCH',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ allowlist: [{ domain: 'exa mple.com' }] }),
    });
    expect(bad.status).toBe(400);
    expect(apiErrorOf(await bad.json()).field).toBe('body.allowlist[0].domain');

    const offline = await server.service.controller.createEnvironment({ network: 'disabled' });
    try {
      const error = await client.environments.network
        .set(offline.id, { allowlist: [{ domain: 'first.hookbox.test' }] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HookboxApiError);
      expect((error as HookboxApiError).status).toBe(409);
      expect(await client.environments.network.set(offline.id, 'disabled')).toMatchObject({
        network: 'disabled',
      });
    } finally {
      await offline.delete();
    }
    const missing = await rejectionOf(
      client.environments.network.get('env_aaaaaaaaaaaaaaaaaaaa'),
      HookboxApiError,
    );
    expect(missing.status).toBe(404);
  });
});
