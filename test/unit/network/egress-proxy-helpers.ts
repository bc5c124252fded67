// Shared by the egress-proxy-*.test.ts files: test upstreams on 127.0.0.1 (plain HTTP, HTTPS with a
// throwaway CA, HTTPS with another CA's certificate, a TCP echo, a closed port), proxies pinned to
// them, and clients that speak to a proxy. Each test file gets its own:
// `beforeAll(startUpstreams)` and `afterAll(closeUpstreams)`.
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { text as bodyText } from 'node:stream/consumers';
import type { Allowlist } from '../../../src/network/allowlist.js';
import { EgressProxy, type EgressProxyOptions } from '../../../src/network/egress-proxy.js';
import type { EgressRecord } from '../../../src/record/egress-record.js';
import { makeTestPki, type TestPki } from './test-ca.js';

export const TOKEN = 'a'.repeat(64);
export const SECRET = 'Bearer telemetry_secret_token_123';

/** What a test upstream saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function recordingHandler(seen: Seen[], answer = '{"decision": "allow"}') {
  return (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' });
      res.end(answer);
    });
  };
}

export interface Answer {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends an absolute-form request to the proxy. */
export async function viaProxy(
  proxy: EgressProxy,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<Answer> {
  const url = new URL(target);
  const outgoing = request({
    host: '127.0.0.1',
    port: proxy.port,
    method,
    path: target,
    headers: { host: url.host, ...headers },
    agent: false,
  });
  outgoing.end(body);
  const [answer] = (await once(outgoing, 'response')) as [IncomingMessage];
  let text = '';
  for await (const chunk of answer) text += chunk;
  return {
    status: answer.statusCode ?? 0,
    statusMessage: answer.statusMessage ?? '',
    headers: answer.headers,
    body: text,
  };
}

/** Sends CONNECT; returns the answer and, when established, the tunnel socket. */
export async function connectVia(
  proxy: EgressProxy,
  authority: string,
): Promise<{
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: string;
  socket: Socket;
}> {
  const outgoing = request({
    host: '127.0.0.1',
    port: proxy.port,
    method: 'CONNECT',
    path: authority,
    agent: false,
  });
  outgoing.end();
  return new Promise((resolve, reject) => {
    // Node reports every answer to CONNECT as 'connect'; a refusal's body follows on the socket.
    outgoing.on('connect', (answer: IncomingMessage, socket: Socket, head: Buffer) => {
      const result = {
        status: answer.statusCode ?? 0,
        statusMessage: answer.statusMessage ?? '',
        headers: answer.headers,
        body: head.toString(),
        socket,
      };
      if (result.status === 200) return resolve(result);
      socket.on('data', (chunk: Buffer) => (result.body += chunk.toString()));
      socket.on('close', () => resolve(result));
    });
    outgoing.on('response', (answer: IncomingMessage) => {
      bodyText(answer).then(
        (body) =>
          resolve({
            status: answer.statusCode ?? 0,
            statusMessage: answer.statusMessage ?? '',
            headers: answer.headers,
            body,
            socket: answer.socket,
          }),
        reject,
      );
    });
    outgoing.on('error', reject);
  });
}

export let pki: TestPki;
export let otherPki: TestPki;
export const servers: { close(): unknown }[] = [];
const proxies: EgressProxy[] = [];
export let httpPort: number;
export let httpsPort: number;
export let wrongNamePort: number;
export let echoPort: number;
export let closedPort: number;
export const httpSeen: Seen[] = [];
export const httpsSeen: Seen[] = [];

/** Starts the test upstreams (each test file's beforeAll). */
export async function startUpstreams(): Promise<void> {
  pki = makeTestPki(['telemetry.hookbox.test', 'other.hookbox.test']);
  otherPki = makeTestPki(['somewhere-else.hookbox.test'], 'another test CA');
  const http = createHttpServer(recordingHandler(httpSeen, 'plain answer'));
  const https = createHttpsServer(
    { cert: pki.serverCert, key: pki.serverKey },
    recordingHandler(httpsSeen),
  );
  const wrong = createHttpsServer(
    { cert: otherPki.serverCert, key: otherPki.serverKey },
    recordingHandler([]),
  );
  const echo = createTcpServer((socket) => socket.pipe(socket));
  const closed = createTcpServer();
  servers.push(http, https, wrong, echo);
  httpPort = await listen(http);
  httpsPort = await listen(https);
  wrongNamePort = await listen(wrong);
  echoPort = await listen(echo);
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
}

/** Closes this file's proxies and upstreams (each test file's afterAll). */
export async function closeUpstreams(): Promise<void> {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  for (const server of servers) server.close();
}

/** A proxy on 127.0.0.1 whose test configuration pins *.hookbox.test names to this machine. */
export async function startProxy(
  overrides: Partial<EgressProxyOptions> & { allowlist: Allowlist },
): Promise<{ proxy: EgressProxy; records: EgressRecord[] }> {
  const records: EgressRecord[] = [];
  const proxy = await EgressProxy.listen(
    {
      environmentId: 'env_test',
      hookToken: TOKEN,
      caCerts: [pki.caCert],
      resolve: async (name) => {
        throw Object.assign(new Error(`no DNS in unit tests (${name})`), { code: 'ENOTFOUND' });
      },
      testing: {
        trustedUpstreams: {
          'telemetry.hookbox.test': '127.0.0.1',
          'other.hookbox.test': '127.0.0.1',
          'wrong-cert.hookbox.test': '127.0.0.1',
          'echo.hookbox.test': '127.0.0.1',
          'closed.hookbox.test': '127.0.0.1',
        },
      },
      onRecord: (record) => records.push(record),
      addressPolicy: { hostAddresses: () => [] },
      ...overrides,
    },
    { port: 0 },
  );
  proxies.push(proxy);
  return { proxy, records };
}

export const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

export const hookUrl = () => `https://telemetry.hookbox.test:${httpsPort}/api/v1/agent-events`;
