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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Allowlist } from '../../../src/network/allowlist.js';
import {
  EgressProxy,
  HOOK_TOKEN_HEADER,
  RULE_HEADER,
  type EgressProxyOptions,
} from '../../../src/network/egress-proxy.js';
import type { EgressRecord } from '../../../src/network/egress-record.js';
import { makeTestPki, type TestPki } from './test-ca.js';

const TOKEN = 'a'.repeat(64);
const SECRET = 'Bearer telemetry_secret_token_123';

/** What a test upstream saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function recordingHandler(seen: Seen[], answer = '{"decision": "allow"}') {
  return (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' });
      res.end(answer);
    });
  };
}

interface Answer {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends an absolute-form request to the proxy. */
async function viaProxy(
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
async function connectVia(
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
    outgoing.on('response', async (answer: IncomingMessage) => {
      let text = '';
      for await (const chunk of answer) text += chunk;
      resolve({
        status: answer.statusCode ?? 0,
        statusMessage: answer.statusMessage ?? '',
        headers: answer.headers,
        body: text,
        socket: answer.socket as Socket,
      });
    });
    outgoing.on('error', reject);
  });
}

let pki: TestPki;
let otherPki: TestPki;
const servers: { close(): unknown }[] = [];
const proxies: EgressProxy[] = [];
let httpPort: number;
let httpsPort: number;
let wrongNamePort: number;
let echoPort: number;
let closedPort: number;
const httpSeen: Seen[] = [];
const httpsSeen: Seen[] = [];

beforeAll(async () => {
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
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  for (const server of servers) server.close();
});

/** A proxy on 127.0.0.1 whose test configuration pins *.hookbox.test names to this machine. */
async function startProxy(
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

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('CONNECT', () => {
  it('tunnels to an allowlisted name and records the connection', async () => {
    const { proxy, records } = await startProxy({
      allowlist: new Allowlist([{ domain: 'echo.hookbox.test' }]),
    });
    const answer = await connectVia(proxy, `echo.hookbox.test:${echoPort}`);
    expect(answer.status).toBe(200);
    answer.socket.write('ping');
    const [data] = (await once(answer.socket, 'data')) as [Buffer];
    expect(data.toString()).toBe('ping');
    answer.socket.destroy();
    await waitFor(() => records.length > 0);
    expect(records[0]).toMatchObject({
      environment_id: 'env_test',
      form: 'connect',
      target: `echo.hookbox.test:${echoPort}`,
      decision: 'allowed',
      rule: 'echo.hookbox.test',
      upstream: `127.0.0.1:${echoPort}`,
      status: 200,
      bytes_out: 4,
      bytes_in: 4,
    });
  });

  it('refuses a name not in the allowlist with 403 naming the rule', async () => {
    const { proxy, records } = await startProxy({
      allowlist: new Allowlist([{ domain: 'telemetry.hookbox.test' }]),
    });
    const answer = await connectVia(proxy, 'evil.example.org:443');
    expect(answer.status).toBe(403);
    expect(answer.statusMessage).toBe('Forbidden by hookbox egress rule allowlist');
    expect(answer.headers[RULE_HEADER]).toBe('allowlist');
    expect(answer.body).toMatch(
      /refused evil\.example\.org:443: rule "allowlist": evil\.example\.org is not in this environment's network\.allowlist/,
    );
    expect(records[0]).toMatchObject({ decision: 'refused', rule: 'allowlist', status: 403 });
  });

  it.each([
    ['10.0.0.5', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['fd00:ec2::254', 'metadata'],
    ['172.17.0.1', 'private'],
  ])('refuses a name that resolves to %s (%s) after resolution', async (address, rule) => {
    const lookups: string[] = [];
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: '*' }]),
      resolve: async (name) => {
        lookups.push(name);
        return [address];
      },
    });
    const answer = await connectVia(proxy, 'sneaky.example.org:443');
    expect(answer.status).toBe(403);
    expect(answer.headers[RULE_HEADER]).toBe(rule);
    expect(answer.body).toContain(`sneaky.example.org resolves to ${address}`);
    expect(lookups).toEqual(['sneaky.example.org']);
  });

  it('refuses a name when any of its addresses is inside, even after a public one', async () => {
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: '*' }]),
      resolve: async () => ['93.184.216.34', '192.168.1.10'],
    });
    const answer = await connectVia(proxy, 'split.example.org:443');
    expect(answer.headers[RULE_HEADER]).toBe('private');
  });

  it('refuses the Docker engine’s networks and the host’s own addresses', async () => {
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: '*' }]),
      resolve: async (name) => (name === 'bridge.example.org' ? ['5.6.0.1'] : ['1.2.3.4']),
      addressPolicy: {
        hostAddresses: () => ['1.2.3.4'],
        blockedNetworks: [{ cidr: '5.6.0.0/16', rule: 'docker-network', what: 'a Docker network' }],
      },
    });
    expect((await connectVia(proxy, 'bridge.example.org:80')).headers[RULE_HEADER]).toBe(
      'docker-network',
    );
    expect((await connectVia(proxy, 'host.example.org:80')).headers[RULE_HEADER]).toBe(
      'host-address',
    );
  });

  it('uses the test name overrides instead of DNS, and still vets their addresses', async () => {
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: '*' }]),
      testing: { hosts: { 'private.hookbox.test': ['10.11.12.13'] } },
    });
    const answer = await connectVia(proxy, 'private.hookbox.test:443');
    expect(answer.headers[RULE_HEADER]).toBe('private');
  });

  it('looks up only the names the test maps hold (not what objects inherit)', async () => {
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: '*' }]),
      testing: { hosts: {}, trustedUpstreams: {} },
    });
    const answer = await connectVia(proxy, '__proto__:443');
    expect(answer.headers[RULE_HEADER]).toBe('dns');
  });

  it('answers 502 naming the rule when the name does not resolve', async () => {
    const { proxy, records } = await startProxy({ allowlist: new Allowlist([{ domain: '*' }]) });
    const answer = await connectVia(proxy, 'nowhere.example.org:443');
    expect(answer.status).toBe(502);
    expect(answer.headers[RULE_HEADER]).toBe('dns');
    expect(records[0]).toMatchObject({ decision: 'failed', rule: 'dns' });
  });

  it.each([
    ['93.184.216.34:443', 'raw-ip'],
    ['[2606:4700::1111]:443', 'raw-ip'],
    ['2130706433:80', 'raw-ip'],
    ['0x7f.1:80', 'raw-ip'],
    ['127.1:80', 'raw-ip'],
  ])('refuses the raw IP target %s even with *', async (authority, rule) => {
    const { proxy } = await startProxy({ allowlist: new Allowlist([{ domain: '*' }]) });
    const answer = await connectVia(proxy, authority);
    expect(answer.status).toBe(403);
    expect(answer.headers[RULE_HEADER]).toBe(rule);
  });

  it('an allowlisted raw IP passes the raw-ip rule but not the address rules', async () => {
    const { proxy } = await startProxy({ allowlist: new Allowlist([{ domain: '127.0.0.1' }]) });
    const answer = await connectVia(proxy, `127.0.0.1:${echoPort}`);
    expect(answer.headers[RULE_HEADER]).toBe('loopback');
  });

  it('refuses a malformed authority', async () => {
    const { proxy } = await startProxy({ allowlist: new Allowlist([{ domain: '*' }]) });
    const answer = await connectVia(proxy, 'no-port.example.org');
    expect(answer.status).toBe(400);
    expect(answer.headers[RULE_HEADER]).toBe('bad-target');
  });

  it('answers 502 when the upstream refuses the connection', async () => {
    const { proxy, records } = await startProxy({
      allowlist: new Allowlist([{ domain: 'closed.hookbox.test' }]),
    });
    const answer = await connectVia(proxy, `closed.hookbox.test:${closedPort}`);
    expect(answer.status).toBe(502);
    expect(answer.headers[RULE_HEADER]).toBe('upstream-unreachable');
    expect(answer.body).toMatch(/ECONNREFUSED/);
    expect(records[0]).toMatchObject({ decision: 'failed', rule: 'upstream-unreachable' });
  });
});

describe('plain HTTP in absolute form', () => {
  it('forwards to an allowlisted name with its Host, without hop headers, and never adds transform headers', async () => {
    const { proxy, records } = await startProxy({
      allowlist: new Allowlist([
        { domain: 'other.hookbox.test', transform: { Authorization: SECRET } },
      ]),
    });
    httpSeen.length = 0;
    const answer = await viaProxy(proxy, 'GET', `http://other.hookbox.test:${httpPort}/path?q=1`, {
      'proxy-authorization': 'Basic x',
      'x-custom': 'kept',
      connection: 'x-drop-me',
      'x-drop-me': 'dropped',
      [HOOK_TOKEN_HEADER]: TOKEN,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('plain answer');
    expect(httpSeen).toHaveLength(1);
    expect(httpSeen[0]!.url).toBe('/path?q=1');
    expect(httpSeen[0]!.headers.host).toBe(`other.hookbox.test:${httpPort}`);
    expect(httpSeen[0]!.headers['x-custom']).toBe('kept');
    expect(httpSeen[0]!.headers['proxy-authorization']).toBeUndefined();
    expect(httpSeen[0]!.headers['x-drop-me']).toBeUndefined();
    expect(httpSeen[0]!.headers[HOOK_TOKEN_HEADER]).toBeUndefined();
    // Secrets never travel in clear text, and tool code's plain HTTP never carries them.
    expect(httpSeen[0]!.headers.authorization).toBeUndefined();
    await waitFor(() => records.length > 0);
    expect(records[0]).toMatchObject({
      form: 'http',
      decision: 'allowed',
      status: 200,
      target: `other.hookbox.test:${httpPort}/path`,
    });
  });

  it('swaps credential placeholders for their entry’s value only, and records header names', async () => {
    const token = `hookbox-credential-${'1'.repeat(32)}`;
    const { proxy, records } = await startProxy({
      allowlist: new Allowlist([
        { domain: 'other.hookbox.test', placeholders: { [token]: 'real-value-42' } },
        { domain: 'telemetry.hookbox.test' },
      ]),
    });
    httpSeen.length = 0;
    const headers = { authorization: `Bearer ${token}`, 'x-plain': 'no token here' };
    await viaProxy(proxy, 'GET', `http://other.hookbox.test:${httpPort}/a`, headers);
    // Another domain gets the meaningless token, never the value.
    await viaProxy(proxy, 'GET', `http://telemetry.hookbox.test:${httpPort}/b`, headers);
    expect(httpSeen.map((seen) => [seen.url, seen.headers.authorization])).toEqual([
      ['/a', 'Bearer real-value-42'],
      ['/b', `Bearer ${token}`],
    ]);
    expect(httpSeen[0]!.headers['x-plain']).toBe('no token here');
    await waitFor(() => records.length > 1);
    expect(records[0]).toMatchObject({ placeholder_headers: ['authorization'] });
    expect(records[1]!.placeholder_headers).toBeUndefined();
    expect(JSON.stringify(records)).not.toContain('real-value-42');
  });

  it('refuses other domains with 403 naming the rule', async () => {
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: 'other.hookbox.test' }]),
    });
    const answer = await viaProxy(proxy, 'GET', 'http://elsewhere.example.org/');
    expect(answer.status).toBe(403);
    expect(answer.headers[RULE_HEADER]).toBe('allowlist');
    expect(answer.body).toContain('rule "allowlist"');
  });

  it('answers an origin-form request (not a proxy request) with 400, recording no query', async () => {
    const { proxy, records } = await startProxy({ allowlist: new Allowlist([{ domain: '*' }]) });
    const outgoing = request({
      host: '127.0.0.1',
      port: proxy.port,
      path: '/path?token=query-secret-1',
      agent: false,
    });
    outgoing.end();
    const [answer] = (await once(outgoing, 'response')) as [IncomingMessage];
    answer.resume();
    expect(answer.statusCode).toBe(400);
    expect(answer.headers[RULE_HEADER]).toBe('not-a-proxy-request');
    await proxy.close();
    expect(records.map((record) => record.target)).toEqual(['/path']);
    expect(JSON.stringify(records)).not.toContain('query-secret-1');
  });
});

const hookUrl = () => `https://telemetry.hookbox.test:${httpsPort}/api/v1/agent-events`;

describe('hook requests (https:// in absolute form with the hook token)', () => {
  it('makes the TLS connection itself and adds the transform headers on the wire', async () => {
    const { proxy, records } = await startProxy({
      allowlist: new Allowlist([
        { domain: 'telemetry.hookbox.test', transform: { Authorization: SECRET } },
        { domain: '*' },
      ]),
    });
    httpsSeen.length = 0;
    const event = '{"tool_call": {"name": "read_file", "args": {"path": "a"}}}';
    const answer = await viaProxy(
      proxy,
      'POST',
      hookUrl(),
      {
        'content-type': 'application/json',
        'x-event-source': 'agent-sandbox',
        authorization: 'Bearer forged-by-the-sandbox',
        [HOOK_TOKEN_HEADER]: TOKEN,
      },
      event,
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"decision": "allow"}');
    expect(httpsSeen).toHaveLength(1);
    expect(httpsSeen[0]).toMatchObject({
      method: 'POST',
      url: '/api/v1/agent-events',
      body: event,
    });
    expect(httpsSeen[0]!.headers.authorization).toBe(SECRET);
    expect(httpsSeen[0]!.headers['x-event-source']).toBe('agent-sandbox');
    expect(httpsSeen[0]!.headers[HOOK_TOKEN_HEADER]).toBeUndefined();
    await waitFor(() => records.length > 0);
    expect(records[0]).toMatchObject({
      form: 'hook',
      decision: 'allowed',
      rule: 'telemetry.hookbox.test',
      injected_headers: ['Authorization'],
      status: 200,
    });
    // Names only: the secret is in no record.
    expect(JSON.stringify(records)).not.toContain('telemetry_secret_token');
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { [HOOK_TOKEN_HEADER]: 'b'.repeat(64) }],
    ['a short token', { [HOOK_TOKEN_HEADER]: 'a' }],
  ])(
    'refuses https:// in absolute form with %s (tool code must use CONNECT)',
    async (_what, headers) => {
      const { proxy } = await startProxy({
        allowlist: new Allowlist([
          { domain: 'telemetry.hookbox.test', transform: { Authorization: SECRET } },
        ]),
      });
      httpsSeen.length = 0;
      const answer = await viaProxy(proxy, 'POST', hookUrl(), headers, '{}');
      expect(answer.status).toBe(403);
      expect(answer.headers[RULE_HEADER]).toBe('hook-form');
      expect(httpsSeen).toHaveLength(0);
    },
  );

  it('verifies the upstream certificate against the name: a certificate for another name fails', async () => {
    const { proxy, records } = await startProxy({
      allowlist: new Allowlist([{ domain: 'wrong-cert.hookbox.test' }]),
      caCerts: [pki.caCert, otherPki.caCert],
    });
    const answer = await viaProxy(
      proxy,
      'POST',
      `https://wrong-cert.hookbox.test:${wrongNamePort}/`,
      { [HOOK_TOKEN_HEADER]: TOKEN },
      '{}',
    );
    expect(answer.status).toBe(502);
    expect(answer.headers[RULE_HEADER]).toBe('upstream-tls');
    expect(answer.body).toMatch(/altnames|Hostname/i);
    expect(records[0]).toMatchObject({ decision: 'failed', rule: 'upstream-tls' });
  });

  it('verifies the upstream certificate against the trusted CAs: an unknown CA fails', async () => {
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: 'telemetry.hookbox.test' }]),
      caCerts: [otherPki.caCert],
    });
    const answer = await viaProxy(proxy, 'POST', hookUrl(), { [HOOK_TOKEN_HEADER]: TOKEN }, '{}');
    expect(answer.status).toBe(502);
    expect(answer.headers[RULE_HEADER]).toBe('upstream-tls');
  });

  it('passes the upstream’s own errors through (they are not the proxy’s)', async () => {
    const failing = createHttpsServer({ cert: pki.serverCert, key: pki.serverKey }, (_req, res) => {
      res.writeHead(500);
      res.end('boom');
    });
    servers.push(failing);
    const port = await listen(failing);
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: 'telemetry.hookbox.test' }]),
    });
    const answer = await viaProxy(
      proxy,
      'POST',
      `https://telemetry.hookbox.test:${port}/`,
      { [HOOK_TOKEN_HEADER]: TOKEN },
      '{}',
    );
    expect(answer.status).toBe(500);
    expect(answer.body).toBe('boom');
    expect(answer.headers[RULE_HEADER]).toBeUndefined();
  });
});

describe('per-environment configuration', () => {
  it('two proxies at once: each has only its own rules and its own secrets', async () => {
    const a = await startProxy({
      environmentId: 'env_a',
      hookToken: 'a'.repeat(64),
      allowlist: new Allowlist([
        { domain: 'telemetry.hookbox.test', transform: { 'X-Secret': 'secret-of-a' } },
      ]),
    });
    const b = await startProxy({
      environmentId: 'env_b',
      hookToken: 'b'.repeat(64),
      allowlist: new Allowlist([
        { domain: 'other.hookbox.test', transform: { 'X-Secret': 'secret-of-b' } },
      ]),
    });
    httpsSeen.length = 0;
    // Each reaches its own domain with its own header...
    const toA = await viaProxy(
      a.proxy,
      'POST',
      hookUrl(),
      { [HOOK_TOKEN_HEADER]: 'a'.repeat(64) },
      '{}',
    );
    const toB = await viaProxy(
      b.proxy,
      'POST',
      `https://other.hookbox.test:${httpsPort}/`,
      { [HOOK_TOKEN_HEADER]: 'b'.repeat(64) },
      '{}',
    );
    expect([toA.status, toB.status]).toEqual([200, 200]);
    expect(httpsSeen.map((seen) => seen.headers['x-secret'])).toEqual([
      'secret-of-a',
      'secret-of-b',
    ]);
    // ...and neither the other's domain nor the other's token.
    expect(
      (
        await viaProxy(
          a.proxy,
          'POST',
          `https://other.hookbox.test:${httpsPort}/`,
          { [HOOK_TOKEN_HEADER]: 'a'.repeat(64) },
          '{}',
        )
      ).headers[RULE_HEADER],
    ).toBe('allowlist');
    expect(
      (await viaProxy(b.proxy, 'POST', hookUrl(), { [HOOK_TOKEN_HEADER]: 'b'.repeat(64) }, '{}'))
        .headers[RULE_HEADER],
    ).toBe('allowlist');
    expect(
      (
        await viaProxy(
          b.proxy,
          'POST',
          `https://other.hookbox.test:${httpsPort}/`,
          { [HOOK_TOKEN_HEADER]: 'a'.repeat(64) },
          '{}',
        )
      ).headers[RULE_HEADER],
    ).toBe('hook-form');
    expect(a.records.every((record) => record.environment_id === 'env_a')).toBe(true);
    expect(b.records.every((record) => record.environment_id === 'env_b')).toBe(true);
  });

  it('a new allowlist applies to the next request', async () => {
    const { proxy } = await startProxy({
      allowlist: new Allowlist([{ domain: 'other.hookbox.test' }]),
    });
    expect((await viaProxy(proxy, 'GET', `http://other.hookbox.test:${httpPort}/`)).status).toBe(
      200,
    );
    proxy.setAllowlist(new Allowlist([{ domain: 'telemetry.hookbox.test' }]));
    expect((await viaProxy(proxy, 'GET', `http://other.hookbox.test:${httpPort}/`)).status).toBe(
      403,
    );
  });
});

describe('lifecycle', () => {
  it('listens on a Unix socket and cuts open tunnels on close', async () => {
    const { mkdtempSync, existsSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { connect } = await import('node:net');
    const path = join(mkdtempSync(join(tmpdir(), 'hookbox-egress-')), 'proxy.sock');
    const proxy = await EgressProxy.listen(
      {
        environmentId: 'env_sock',
        hookToken: TOKEN,
        allowlist: new Allowlist([{ domain: 'echo.hookbox.test' }]),
        testing: { trustedUpstreams: { 'echo.hookbox.test': '127.0.0.1' } },
      },
      { path },
    );
    expect(statSync(path).mode & 0o777).toBe(0o666);
    const socket = connect(path);
    socket.write(`CONNECT echo.hookbox.test:${echoPort} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const [head] = (await once(socket, 'data')) as [Buffer];
    expect(head.toString()).toMatch(/^HTTP\/1\.1 200/);
    const closed = once(socket, 'close');
    await proxy.close();
    await closed;
    expect(existsSync(path)).toBe(false);
  });

  it('does not forward protocol upgrades, and records no query', async () => {
    const { proxy, records } = await startProxy({ allowlist: new Allowlist([{ domain: '*' }]) });
    const { connect } = await import('node:net');
    const raw = connect(proxy.port, '127.0.0.1');
    raw.write(
      'GET http://other.hookbox.test/ws?token=query-secret-2#f HTTP/1.1\r\nHost: other.hookbox.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    const [head] = (await once(raw, 'data')) as [Buffer];
    expect(head.toString()).toMatch(
      /^HTTP\/1\.1 400[^\r]*\r\n[\s\S]*x-hookbox-egress-rule: bad-request/i,
    );
    raw.destroy();
    await proxy.close();
    expect(records.map((record) => record.target)).toEqual(['http://other.hookbox.test/ws']);
    expect(JSON.stringify(records)).not.toContain('query-secret-2');
  });
});
