// docs/contract.md §4 (http handlers) and §7 (network), against real containers. The "outside" is this
// machine: HTTPS and HTTP test servers on 127.0.0.1 with a throwaway CA, which the proxy reaches
// only through the name overrides of its *test configuration* (`egress.testing`). No test touches
// an outside address.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeSources } from '../../src/config/sources.js';
import { Controller } from '../../src/environments/controller.js';
import type { Environment } from '../../src/environments/environment.js';
import type { EnvironmentOptions } from '../../src/environments/environment-options.js';
import { UserError } from '../../src/errors/index.js';
import { addressInCidr, localInterfaceAddresses } from '../../src/network/addresses.js';
import type { AllowlistEntry } from '../../src/network/allowlist.js';
import type { EgressSettings } from '../../src/network/environment-egress.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/sandbox/docker-container-client.js';
import { makeTestPki, type TestPki } from '../unit/network/test-ca.js';
import { hooksJson, inline } from './helpers.js';
import { MEMORY_SEARCH, ROOT_SEARCH } from './secret-hunt.js';

const SECRET = 'telemetry_secret_token_123';
const NAMES = [
  'telemetry.hookbox.test',
  'allowed.hookbox.test',
  'tenant-a.hookbox.test',
  'tenant-b.hookbox.test',
];

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

let pki: TestPki;
const received: Received[] = [];
const hanging = new Set<ServerResponse>();
const closers: (() => void)[] = [];
let httpsPort: number;
let httpPort: number;
let closedPort: number;
let hostListenerPort: number;
let bridgeGateway: string;
let home: string;
let controller: Controller;

/** The test's "internet": answers by path, and remembers what it got. */
function telemetry(req: IncomingMessage, res: ServerResponse): void {
  let text = '';
  req.on('data', (chunk: Buffer) => (text += chunk));
  req.on('end', () => {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    const path = req.url ?? '';
    received.push({ path, headers: req.headers, body });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (path.startsWith('/deny'))
      json(200, { decision: 'deny', reason: 'blocked by the remote gate' });
    else if (path.startsWith('/allow')) json(200, { decision: 'allow' });
    else if (path.startsWith('/500'))
      json(500, { decision: 'deny', reason: 'a 500 is no decision' });
    else if (path.startsWith('/garbage')) res.end('<html>not a decision</html>');
    else if (path.startsWith('/hang')) hanging.add(res);
    else if (path.startsWith('/page')) res.end(`page of ${req.headers.host}`);
    else if (path.startsWith('/big')) res.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
    else if (path.startsWith('/size')) res.end(String(text.length));
    else json(200, { ok: true });
  });
}

async function listen(
  server: { listen(port: number, host: string): unknown; address(): unknown } & NodeJS.EventEmitter,
  host = '127.0.0.1',
): Promise<number> {
  server.listen(0, host);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

const egressSettings = (): EgressSettings => ({
  caCerts: [pki.caCert],
  testing: {
    // Test configuration only: these names lead to the test servers on this machine.
    trustedUpstreams: Object.fromEntries(
      [...NAMES, 'down.hookbox.test'].map((name) => [name, '127.0.0.1']),
    ),
    // Vetted like any DNS answer: refused, because the address is private.
    hosts: { 'private.hookbox.test': ['10.11.12.13'] },
  },
});

beforeAll(async () => {
  pki = makeTestPki(NAMES);
  const https = createHttpsServer({ cert: pki.serverCert, key: pki.serverKey }, telemetry);
  const http = createHttpServer(telemetry);
  const closed = createTcpServer();
  // Listens on every host address: the sandbox must still not reach it directly.
  const hostListener = createTcpServer((socket: Socket) => socket.end('host service\n'));
  httpsPort = await listen(https);
  httpPort = await listen(http);
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  hostListenerPort = await listen(hostListener, '0.0.0.0');
  closers.push(
    () => https.close(),
    () => http.close(),
    () => hostListener.close(),
  );
  // The Docker host's address on the default bridge (docker0): where host services are reachable.
  const bridgeSubnet = execFileSync('docker', [
    'network',
    'inspect',
    'bridge',
    '-f',
    '{{(index .IPAM.Config 0).Subnet}}',
  ])
    .toString()
    .trim();
  bridgeGateway = localInterfaceAddresses().find((address) =>
    addressInCidr(address, bridgeSubnet),
  )!;
  expect(bridgeGateway).toBeDefined();
  home = mkdtempSync(join(tmpdir(), 'hookbox-net-'));
  controller = await Controller.start({
    home,
    logger: createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' }),
    egress: egressSettings(),
  });
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await controller?.close();
  for (const close of closers) close();
});

async function withNetworkedEnvironment<T>(
  allowlist: AllowlistEntry[],
  sources: EnvironmentOptions['sources'],
  body: (environment: Environment) => Promise<T>,
): Promise<T> {
  const environment = await controller.createEnvironment({
    vocabulary: '2026-05',
    sources,
    network: { allowlist },
  });
  try {
    return await body(environment);
  } finally {
    await environment.delete();
  }
}

const python = (code: string) => ({ name: 'code_execution', args: { code, language: 'python' } });
const bash = (code: string) => ({ name: 'code_execution', args: { code, language: 'bash' } });

/** Tool code: fetch a URL through HTTP_PROXY (python urllib); prints status and body, or the error. */
const fetchCode = (url: string, cafile?: string) => `
import ssl, urllib.request, urllib.error
context = ssl.create_default_context(cafile=${JSON.stringify(cafile ?? null)}) if ${cafile ? 'True' : 'False'} else None
try:
    answer = urllib.request.urlopen(${JSON.stringify(url)}, timeout=10, context=context)
    print(answer.status, answer.read().decode())
except urllib.error.HTTPError as error:
    print(error.code, error.reason, "|", error.read().decode())
except Exception as error:
    print("ERROR", error)
`;

function dockerJson(...args: string[]): unknown {
  return JSON.parse(execFileSync('docker', args).toString());
}

function labelled(kind: 'ps' | 'network', environmentId: string): string {
  const args =
    kind === 'ps'
      ? ['ps', '-aq', '--filter', `label=dev.hookbox.environment=${environmentId}`]
      : ['network', 'ls', '-q', '--filter', `label=dev.hookbox.environment=${environmentId}`];
  return execFileSync('docker', args).toString().trim();
}

describe('the audit-logging example of the Gemini hooks page (post hook → http, transform header)', () => {
  it('sends each event with the injected header; the secret is nowhere in the sandbox', async () => {
    received.length = 0;
    const url = `https://telemetry.hookbox.test:${httpsPort}/api/v1/agent-events`;
    const hooks = hooksJson({
      'audit-logging': {
        post_tool_execution: [
          { matcher: 'read_file|write_file', hooks: [{ type: 'http', url, timeout: 10 }] },
        ],
      },
    });
    await withNetworkedEnvironment(
      [
        { domain: 'telemetry.hookbox.test', transform: { Authorization: `Bearer ${SECRET}` } },
        { domain: '*' },
      ],
      [hooks],
      async (environment) => {
        const write = await environment.call({
          name: 'write_file',
          args: { path: 'audit.log', content: 'event 1' },
        });
        const read = await environment.call({ name: 'read_file', args: { path: 'audit.log' } });
        const list = await environment.call({ name: 'list_files', args: { path: '.' } });
        expect(read.result).toEqual({ content: 'event 1' });
        for (const outcome of [write, read])
          expect(outcome.hooks).toMatchObject([
            { type: 'http', event: 'post_tool_execution', outcome: 'ok', handler: url },
          ]);
        expect(list.hooks).toEqual([]);

        // The telemetry server got each event, with the header only the proxy knows.
        expect(received.map((event) => event.path)).toEqual([
          '/api/v1/agent-events',
          '/api/v1/agent-events',
        ]);
        for (const event of received) {
          expect(event.headers.authorization).toBe(`Bearer ${SECRET}`);
          expect(event.headers['content-type']).toBe('application/json');
          expect(event.headers['x-hookbox-hook-token']).toBeUndefined();
        }
        expect(received[0]!.body).toMatchObject({
          tool_call: { name: 'write_file', args: { path: 'audit.log', content: 'event 1' } },
          environment_id: environment.id,
        });
        expect(received[1]!.body).toMatchObject({
          tool_call: { name: 'read_file', args: { path: 'audit.log' } },
          environment_id: environment.id,
          result: { content: 'event 1' },
        });

        // The records: every connection, header names but never values.
        const egress = environment.records().filter((entry) => entry.kind === 'egress');
        expect(egress).toHaveLength(2);
        expect(egress[0]).toMatchObject({
          form: 'hook',
          decision: 'allowed',
          rule: 'telemetry.hookbox.test',
          injected_headers: ['Authorization'],
          status: 200,
        });
        expect(JSON.stringify(environment.records())).not.toContain(SECRET);

        // Tool code looks for the secret everywhere it can: environment, files, /proc.
        const search = await environment.call(
          bash(
            // A pattern that matches the secret without being it (else grep finds its own argv).
            `P='${SECRET.slice(0, -1)}[${SECRET.at(-1)}]'; env | grep -c "$P"; ` +
              `grep -rls -D skip "$P" / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null; ` +
              `for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do grep -ls "$P" "$f" 2>/dev/null; done; ` +
              `echo searched`,
          ),
        );
        expect(search.result?.stdout).toBe('0\nsearched\n');

        // So does root through docker exec, as every user, including every process's memory.
        const half = SECRET.length >> 1;
        const rootSearch = JSON.parse(
          execFileSync('docker', [
            'exec',
            '-u',
            '0',
            environment.sandbox.containerId,
            'python3',
            '-c',
            ROOT_SEARCH,
            SECRET.slice(0, half),
            SECRET.slice(half),
          ]).toString(),
        ) as string[];
        expect(rootSearch).toEqual([]);
        // (The search does find what is there: the tool's file, as the tool user.)
        const control = execFileSync('docker', [
          'exec',
          '-u',
          '0',
          environment.sandbox.containerId,
          'python3',
          '-c',
          ROOT_SEARCH,
          'event',
          ' 1',
        ]).toString();
        expect(JSON.parse(control)).toContain('/workspace/audit.log');
        // And the memory of every process of the sandbox, read from the host.
        const pids = execFileSync('docker', ['top', environment.sandbox.containerId, '-eo', 'pid'])
          .toString()
          .split('\n')
          .slice(1)
          .map((line) => line.trim())
          .filter(Boolean);
        const memory = JSON.parse(
          execFileSync('python3', [
            '-c',
            MEMORY_SEARCH,
            SECRET.slice(0, half),
            SECRET.slice(half),
            ...pids,
          ]).toString(),
        ) as { found: string[]; scanned: number };
        expect(memory.found).toEqual([]);
        // tini and the sandbox agent at least (the test runs as root on the host, as the suite does).
        expect(memory.scanned).toBeGreaterThanOrEqual(2);
        // (The scan does find a secret where there is one: in the controller, this process.)
        const own = JSON.parse(
          execFileSync('python3', [
            '-c',
            MEMORY_SEARCH,
            SECRET.slice(0, half),
            SECRET.slice(half),
            String(process.pid),
          ]).toString(),
        ) as { found: string[] };
        expect(own.found).toContain(String(process.pid));

        // Nor is it in the containers' configuration (environment, command line).
        const relay = labelled('ps', environment.id).split('\n');
        expect(relay).toHaveLength(2);
        for (const id of relay)
          expect(JSON.stringify(dockerJson('inspect', id))).not.toContain(SECRET);
      },
    );
  });
});

describe('http pre hooks decide like command hooks', () => {
  let environment: Environment;
  const gate = (path: string, extra: Record<string, unknown> = {}) =>
    hooksJson({
      'remote-gate': {
        pre_tool_execution: [
          {
            matcher: 'code_execution',
            hooks: [
              {
                type: 'http',
                url: `https://telemetry.hookbox.test:${httpsPort}${path}`,
                headers: { 'X-Event-Source': 'agent-sandbox' },
                timeout: 10,
                ...extra,
              },
            ],
          },
        ],
      },
    });
  const downGate = (extra: Record<string, unknown> = {}) =>
    hooksJson({
      'remote-gate': {
        pre_tool_execution: [
          {
            matcher: 'code_execution',
            hooks: [{ type: 'http', url: `https://down.hookbox.test:${closedPort}/`, ...extra }],
          },
        ],
      },
    });

  beforeAll(async () => {
    environment = await controller.createEnvironment({
      vocabulary: '2026-05',
      network: {
        allowlist: [
          { domain: 'telemetry.hookbox.test', transform: { Authorization: `Bearer ${SECRET}` } },
          { domain: 'down.hookbox.test' },
        ],
      },
    });
  });
  afterAll(async () => {
    await environment?.delete();
  });

  const touch = bash('touch ran && echo ran');

  it('an answer of deny blocks the call, with its reason; the server got the event', async () => {
    received.length = 0;
    await environment.addSources(placeSources([gate('/deny')]));
    const outcome = await environment.call(touch);
    expect(outcome).toMatchObject({
      blocked: true,
      reason: 'blocked by the remote gate',
      result: null,
    });
    expect(outcome.hooks).toMatchObject([
      { type: 'http', outcome: 'deny', reason: 'blocked by the remote gate', exit_code: null },
    ]);
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toEqual({
      tool_call: {
        name: 'code_execution',
        args: { code: 'touch ran && echo ran', language: 'bash' },
      },
      environment_id: environment.id,
    });
    expect(received[0]!.headers).toMatchObject({
      authorization: `Bearer ${SECRET}`,
      'x-event-source': 'agent-sandbox',
    });
  });

  it('an answer of allow lets it through', async () => {
    await environment.addSources(placeSources([gate('/allow')]));
    const outcome = await environment.call(touch);
    expect(outcome.blocked).toBe(false);
    expect(outcome.result?.stdout).toBe('ran\n');
    expect(outcome.hooks).toMatchObject([{ outcome: 'allow' }]);
  });

  const failures: [
    string,
    () => ReturnType<typeof gate>,
    () => ReturnType<typeof gate>,
    string,
    RegExp,
  ][] = [
    [
      'a 500 answer',
      () => gate('/500'),
      () => gate('/500', { on_error: 'deny' }),
      'error',
      /HTTP status 500/,
    ],
    [
      'a garbage answer',
      () => gate('/garbage'),
      () => gate('/garbage', { on_error: 'deny' }),
      'unrecognized',
      /not a decision/,
    ],
    [
      'a hang past the timeout',
      () => gate('/hang', { timeout: 2 }),
      () => gate('/hang', { timeout: 2, on_error: 'deny' }),
      'timeout',
      /timed out after 2 s/,
    ],
    [
      'a refused connection',
      () => downGate(),
      () => downGate({ on_error: 'deny' }),
      'error',
      /could not reach down\.hookbox\.test.*upstream-unreachable.*ECONNREFUSED/,
    ],
  ];

  it.each(failures)('%s allows', async (_what, allowGate, _denyGate, outcome, reason) => {
    await environment.addSources(placeSources([allowGate()]));
    const started = performance.now();
    const result = await environment.call(touch);
    expect(result.blocked).toBe(false);
    expect(result.result?.stdout).toBe('ran\n');
    expect(result.hooks).toMatchObject([{ type: 'http', outcome }]);
    expect(result.hooks[0]!.reason).toMatch(reason);
    if (outcome === 'timeout') {
      expect(result.hooks[0]!.duration_ms).toBeGreaterThanOrEqual(2000);
      expect(performance.now() - started).toBeLessThan(6000);
    }
  });

  it.each(failures)(
    '%s blocks with on_error: "deny"',
    async (_what, _allowGate, denyGate, outcome, reason) => {
      await environment.addSources(placeSources([denyGate()]));
      const result = await environment.call(touch);
      expect(result.blocked).toBe(true);
      expect(result.reason).toMatch(/on_error is "deny"/);
      expect(result.hooks).toMatchObject([{ type: 'http', outcome }]);
      expect(result.hooks[0]!.reason).toMatch(reason);
    },
  );

  it('gates naming a domain the allowlist lacks are refused, the old gates stay', async () => {
    await environment.addSources(placeSources([gate('/deny')]));
    const other = hooksJson({
      g: {
        post_tool_execution: [
          { hooks: [{ type: 'http', url: 'https://elsewhere.hookbox.test/ev' }] },
        ],
      },
    });
    await expect(environment.addSources(placeSources([other]))).rejects.toThrow(
      /needs? a network\.allowlist that names elsewhere\.hookbox\.test/,
    );
    expect((await environment.call(touch)).blocked).toBe(true);
  });
});

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

  const run = async (code: string) => (await environment.call(python(code))).result?.stdout ?? '';

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

describe('without an allowlist', () => {
  it('there is no interface but loopback', async () => {
    const environment = await controller.createEnvironment({ vocabulary: '2026-05' });
    try {
      const out = (
        await environment.call(
          bash("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; env | grep -ci proxy"),
        )
      ).result?.stdout;
      expect(out).toBe('lo\n0\n');
      expect(environment.egress).toBeUndefined();
      expect(labelled('network', environment.id)).toBe('');
    } finally {
      await environment.delete();
    }
  });

  it('an http hook is refused at creation, naming its domain; nothing is made', async () => {
    const hooks = hooksJson({
      g: {
        post_tool_execution: [
          { hooks: [{ type: 'http', url: `https://telemetry.hookbox.test:${httpsPort}/ev` }] },
        ],
      },
    });
    const before = execFileSync('docker', [
      'ps',
      '-aq',
      '--filter',
      `label=dev.hookbox.controller=${controller.identity.id}`,
    ]).toString();
    for (const network of [undefined, { allowlist: [{ domain: 'allowed.hookbox.test' }] }]) {
      const error = await controller
        .createEnvironment({ sources: [hooks], ...(network ? { network } : {}) })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).message).toMatch(
        /"http" handlers need a network\.allowlist that names telemetry\.hookbox\.test/,
      );
      expect((error as UserError).details.field).toBe('g.post_tool_execution[0].hooks[0].url');
    }
    const bad = await controller
      .createEnvironment({ network: { allowlist: [{ domain: 'a.*.test' }] } })
      .catch((caught: unknown) => caught);
    expect((bad as UserError).details.field).toBe('network.allowlist[0].domain');
    expect(
      execFileSync('docker', [
        'ps',
        '-aq',
        '--filter',
        `label=dev.hookbox.controller=${controller.identity.id}`,
      ]).toString(),
    ).toBe(before);
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
        expect(out.result?.stdout).toMatch(
          /Tunnel connection failed: 403 Forbidden by hookbox egress rule allowlist/,
        );
        expect(out.result?.stdout).toMatch(/other relay: (TimeoutError|OSError|timeout)/);
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

describe('lifecycle of the network', () => {
  it('the environment’s network, relay and proxy socket go with it', async () => {
    const environment = await controller.createEnvironment({
      network: { allowlist: [{ domain: 'allowed.hookbox.test' }] },
    });
    const id = environment.id;
    const network = dockerJson('network', 'inspect', `hookbox-${id}`) as {
      Internal: boolean;
      Options: Record<string, string>;
      Labels: Record<string, string>;
      Containers: Record<string, unknown>;
    }[];
    expect(network[0]).toMatchObject({
      Internal: true,
      Options: { 'com.docker.network.bridge.inhibit_ipv4': 'true' },
      Labels: {
        'dev.hookbox.environment': id,
        'dev.hookbox.role': 'network',
        'dev.hookbox.managed': 'true',
      },
    });
    expect(Object.keys(network[0]!.Containers)).toHaveLength(2);
    const relay = (
      dockerJson('inspect', `hookbox-${id}-egress`) as {
        Config: { User: string; Labels: Record<string, string> };
        HostConfig: { CapDrop: string[]; CapAdd: string[] | null; ReadonlyRootfs: boolean };
      }[]
    )[0]!;
    expect(relay.Config.User).toBe('65534:65534');
    expect(relay.Config.Labels['dev.hookbox.role']).toBe('egress');
    expect(relay.HostConfig).toMatchObject({ CapDrop: ['ALL'], ReadonlyRootfs: true });
    expect(relay.HostConfig.CapAdd ?? []).toEqual([]);
    const socket = join(home, 'egress', id, 'proxy.sock');
    expect(existsSync(socket)).toBe(true);
    await environment.delete();
    expect(labelled('ps', id)).toBe('');
    expect(labelled('network', id)).toBe('');
    expect(existsSync(join(home, 'egress', id))).toBe(false);
  });

  it('a failure after the network exists removes everything made', async () => {
    const logger = createLogger({ level: 'silent' });
    const client = new DockerContainerClient(logger);
    let madeFor: string | undefined;
    const failing = Object.assign(Object.create(client) as DockerContainerClient, {
      createContainer: async (spec: Parameters<DockerContainerClient['createContainer']>[0]) => {
        madeFor = spec.labels['dev.hookbox.environment'];
        if (spec.labels['dev.hookbox.role'] === 'sandbox')
          throw new Error('injected sandbox failure');
        return client.createContainer(spec);
      },
    });
    const failingHome = mkdtempSync(join(tmpdir(), 'hookbox-net-'));
    const c = await Controller.start({
      client: failing,
      logger,
      home: failingHome,
      egress: egressSettings(),
    });
    await expect(
      c.createEnvironment({ network: { allowlist: [{ domain: 'allowed.hookbox.test' }] } }),
    ).rejects.toThrow('injected sandbox failure');
    expect(madeFor).toMatch(/^env_/);
    expect(labelled('ps', madeFor!)).toBe('');
    expect(labelled('network', madeFor!)).toBe('');
    expect(existsSync(join(failingHome, 'egress', madeFor!))).toBe(false);
    await c.close();
  });
});
