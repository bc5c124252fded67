// docs/contract.md §7 (network), against real containers: what tool code reaches through the egress
// proxy (allowlisted domains only, without the secrets; no way around it), and two environments'
// rules and headers kept apart. The test servers and the controller: network-helpers.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { execResultOf } from '../../src/tools/results.js';
import { hooksJson, inline } from './helpers.js';
import {
  bridgeGateway,
  controller,
  fetchCode,
  hostListenerPort,
  httpPort,
  httpsPort,
  pki,
  python,
  received,
  SECRET,
  startNetwork,
  stopNetwork,
} from './network-helpers.js';

beforeAll(startNetwork);
afterAll(stopNetwork);

describe('tool code through the proxy', () => {
  let environment: Environment;

  beforeAll(async () => {
    environment = await controller.createEnvironment({
      vocabulary: '2026-05',
      sources: [inline('workspace/test-ca.pem', pki.caCert)],
      network: {
        allowlist: [
          { domain: 'allowed.hookbox.test', transform: { Authorization: `Bearer ${SECRET}` } },
          { domain: 'localhost' },
          { domain: 'private.hookbox.test' },
          // The Docker host's bridge address, listed outright: the address rules still refuse it.
          { domain: bridgeGateway },
        ],
      },
    });
  });
  afterAll(async () => {
    await environment?.delete();
  });

  const run = async (code: string) => execResultOf(await environment.call(python(code))).stdout;

  it('reaches an allowlisted domain over plain HTTP (absolute form), without the secret', async () => {
    received.length = 0;
    const out = await run(fetchCode(`http://allowed.hookbox.test:${httpPort}/page`));
    expect(out).toBe(`200 page of allowed.hookbox.test:${httpPort}\n`);
    expect(received[0]!.headers.authorization).toBeUndefined();
  });

  it('reaches an allowlisted domain over HTTPS (CONNECT), with its own TLS, without the secret', async () => {
    received.length = 0;
    const out = await run(
      fetchCode(`https://allowed.hookbox.test:${httpsPort}/page`, '/workspace/test-ca.pem'),
    );
    expect(out).toBe(`200 page of allowed.hookbox.test:${httpsPort}\n`);
    expect(received[0]!.headers.authorization).toBeUndefined();
  });

  it('carries large bodies both ways (4 MiB down, 2 MiB up) through relay and proxy', async () => {
    const out = await run(`
import urllib.request
down = urllib.request.urlopen("http://allowed.hookbox.test:${httpPort}/big", timeout=30).read()
up = urllib.request.urlopen(urllib.request.Request("http://allowed.hookbox.test:${httpPort}/size", data=b"y" * (2 * 1024 * 1024)), timeout=30).read()
print(len(down), up.decode())
`);
    expect(out).toBe(`${4 * 1024 * 1024} ${2 * 1024 * 1024}\n`);
  });

  it.each([
    ['another domain', () => `http://other.hookbox.test:${httpPort}/`, 'allowlist'],
    ['another domain over HTTPS', () => `https://other.hookbox.test:${httpsPort}/`, 'allowlist'],
    ['a raw IP', () => 'http://198.51.100.7/', 'raw-ip'],
    ['a raw loopback IP', () => `http://127.0.0.1:${httpPort}/`, 'raw-ip'],
    ['loopback by name', () => `http://localhost:${httpPort}/`, 'loopback'],
    [
      'the Docker host’s bridge address',
      () => `http://${bridgeGateway}:${hostListenerPort}/`,
      'host-address',
    ],
    ['a name that resolves to a private address', () => 'http://private.hookbox.test/', 'private'],
  ])('refuses %s, naming the rule', async (_what, url, rule) => {
    const out = await run(fetchCode(url()));
    if (url().startsWith('https:'))
      expect(out).toMatch(
        new RegExp(`Tunnel connection failed: 403 Forbidden by hookbox egress rule ${rule}`),
      );
    else
      expect(out).toMatch(
        new RegExp(
          `^403 Forbidden by hookbox egress rule ${rule} \\| hookbox egress proxy refused .*: rule "${rule}": `,
        ),
      );
    const records = environment.records().filter((entry) => entry.kind === 'egress');
    expect(records.at(-1)).toMatchObject({ decision: 'refused', rule });
  });

  it('has no way around the proxy: no DNS, no IPv6, no host address on its network', async () => {
    const out = await run(`
import socket
def tcp(address, port):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((address, port))
        return "CONNECTED"
    except OSError as error:
        return type(error).__name__
    finally:
        s.close()
import subprocess
try:
    subprocess.run(["getent", "hosts", "allowed.hookbox.test"], timeout=3, check=True, capture_output=True)
    print("dns: resolved")
except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
    print("dns: fails")
interfaces = sorted(line.split(":")[0].strip() for line in open("/proc/net/dev").readlines()[2:])
print("interfaces:", interfaces)
print("ipv6:", open("/proc/net/if_inet6").read().strip() or "none")
gateway = socket.inet_ntoa(bytes.fromhex([l.split()[2] for l in open("/proc/net/route").readlines()[1:] if l.split()[1] == "00000000"][0])[::-1])
print("host bridge:", tcp(${JSON.stringify(bridgeGateway)}, ${hostListenerPort}))
print("own gateway:", tcp(gateway, ${hostListenerPort}))
`);
    expect(out).toMatch(/^dns: fails\n/m);
    expect(out).toMatch(/^interfaces: \['eth0', 'lo'\]$/m);
    expect(out).toMatch(/^ipv6: none$/m);
    expect(out).toMatch(
      /^host bridge: (TimeoutError|OSError|ConnectionRefusedError|socket\.timeout|timeout)$/m,
    );
    expect(out).not.toMatch(/CONNECTED/);
  });

  it('the proxy environment variables are there for tool code', async () => {
    const out = await run(
      'import os; print(sorted((k, v) for k, v in os.environ.items() if "proxy" in k.lower()))',
    );
    const url = `http://${environment.egress!.relayAddress}:3128`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'])
      expect(out).toContain(`('${name}', '${url}')`);
    expect(out).toContain("('NO_PROXY', '')");
  });
});

describe('two environments at once', () => {
  it('do not see each other’s rules or headers', async () => {
    received.length = 0;
    const tenant = (name: string) =>
      hooksJson({
        audit: {
          post_tool_execution: [
            {
              matcher: 'code_execution',
              hooks: [
                { type: 'http', url: `https://${name}.hookbox.test:${httpsPort}/events/${name}` },
              ],
            },
          ],
        },
      });
    const [a, b] = (await Promise.all(
      (['tenant-a', 'tenant-b'] as const).map((name) =>
        controller.createEnvironment({
          vocabulary: '2026-05',
          sources: [tenant(name)],
          network: {
            allowlist: [
              {
                domain: `${name}.hookbox.test`,
                transform: { 'X-Tenant-Secret': `secret-of-${name}` },
              },
            ],
          },
        }),
      ),
    )) as [Environment, Environment];
    try {
      const reach = (target: string, relay: string) => `
${fetchCode(`https://${target}.hookbox.test:${httpsPort}/`)}
import socket
s = socket.socket(); s.settimeout(2)
try:
    s.connect((${JSON.stringify(relay)}, 3128)); print("other relay: CONNECTED")
except OSError as error:
    print("other relay:", type(error).__name__)
`;
      const [fromA, fromB] = await Promise.all([
        a.call(python(reach('tenant-b', b.egress!.relayAddress))),
        b.call(python(reach('tenant-a', a.egress!.relayAddress))),
      ]);
      for (const out of [fromA, fromB]) {
        expect(execResultOf(out).stdout).toMatch(
          /Tunnel connection failed: 403 Forbidden by hookbox egress rule allowlist/,
        );
        expect(execResultOf(out).stdout).toMatch(/other relay: (TimeoutError|OSError|timeout)/);
        expect(out.hooks).toMatchObject([{ type: 'http', outcome: 'ok' }]);
      }
      const byPath = Object.fromEntries(
        received.map((event) => [event.path, event.headers['x-tenant-secret']]),
      );
      expect(byPath).toEqual({
        '/events/tenant-a': 'secret-of-tenant-a',
        '/events/tenant-b': 'secret-of-tenant-b',
      });
      expect(a.egress!.networkName).not.toBe(b.egress!.networkName);
    } finally {
      await Promise.all([a.delete(), b.delete()]);
    }
  });
});
