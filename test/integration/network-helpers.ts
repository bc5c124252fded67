// Shared by the network-*.test.ts files (docs/contract.md §4 http handlers, §7 network), against
// real containers. The "outside" is this machine: HTTPS and HTTP test servers on 127.0.0.1 with a
// throwaway CA, which the proxy reaches only through the name overrides of its *test configuration*
// (`egress.testing`). No test touches an outside address. Each test file gets its own servers and
// controller: `beforeAll(startNetwork)` and `afterAll(stopNetwork)`.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Environment } from '../../src/controller/environment.js';
import type { EnvironmentOptions } from '../../src/controller/environment-options.js';
import { addressInCidr, localInterfaceAddresses } from '../../src/network/addresses.js';
import type { AllowlistEntry } from '../../src/network/allowlist.js';
import type { EgressSettings } from '../../src/network/environment-egress.js';
import { createLogger } from '../../src/record/logger.js';
import { makeTestPki, type TestPki } from '../unit/network/test-ca.js';

export const SECRET = 'telemetry_secret_token_123';
const NAMES = [
  'telemetry.hookbox.test',
  'allowed.hookbox.test',
  'tenant-a.hookbox.test',
  'tenant-b.hookbox.test',
];

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export let pki: TestPki;
export const received: Received[] = [];
const hanging = new Set<ServerResponse>();
const closers: (() => void)[] = [];
export let httpsPort: number;
export let httpPort: number;
export let closedPort: number;
export let hostListenerPort: number;
export let bridgeGateway: string;
export let home: string;
export let controller: Controller;

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

export const egressSettings = (): EgressSettings => ({
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

/** Starts the test servers and this file's controller (each test file's beforeAll). */
export async function startNetwork(): Promise<void> {
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
}

/** Each test file's afterAll. */
export async function stopNetwork(): Promise<void> {
  for (const res of hanging) res.destroy();
  await controller?.close();
  for (const close of closers) close();
}

export async function withNetworkedEnvironment<T>(
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

export const python = (code: string) => ({
  name: 'code_execution',
  args: { code, language: 'python' },
});
export const bash = (code: string) => ({
  name: 'code_execution',
  args: { code, language: 'bash' },
});

/** Tool code: fetch a URL through HTTP_PROXY (python urllib); prints status and body, or the error. */
export const fetchCode = (url: string, cafile?: string) => `
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

export function dockerJson(...args: string[]): unknown {
  return JSON.parse(execFileSync('docker', args).toString());
}

export function labelled(kind: 'ps' | 'network', environmentId: string): string {
  const args =
    kind === 'ps'
      ? ['ps', '-aq', '--filter', `label=dev.hookbox.environment=${environmentId}`]
      : ['network', 'ls', '-q', '--filter', `label=dev.hookbox.environment=${environmentId}`];
  return execFileSync('docker', args).toString().trim();
}
