// The egress proxy's connect timeout is a network failure of one address, not a TLS failure: the
// next address of the name is tried, and when none answers the refusal says "upstream-timeout"
// (docs/network.md, Egress proxy). Real sockets: a silent listener and an HTTPS server.
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Allowlist } from '../../src/network/allowlist.js';
import { EgressProxy, HOOK_TOKEN_HEADER, RULE_HEADER } from '../../src/network/egress-proxy.js';
import type { EgressRecord } from '../../src/record/egress-record.js';
import { makeTestPki } from '../unit/network/test-ca.js';

const TOKEN = 'b'.repeat(64);
const pki = makeTestPki(['slow.hookbox.test']);
const https = createHttpsServer({ cert: pki.serverCert, key: pki.serverKey }, (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"decision": "allow"}');
});
// Accepts the TCP connection and never answers the TLS handshake: a hanging address.
const held: Socket[] = [];
const silent = createTcpServer((socket) => held.push(socket));
let port: number;
const proxies: EgressProxy[] = [];

beforeAll(async () => {
  https.listen(0, '127.0.0.1');
  await once(https, 'listening');
  port = (https.address() as AddressInfo).port;
  silent.listen(port, '127.0.0.2');
  await once(silent, 'listening');
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  held.forEach((socket) => socket.destroy());
  https.close();
  silent.close();
});

async function proxyFor(addresses: string[]) {
  const records: EgressRecord[] = [];
  const proxy = await EgressProxy.listen(
    {
      environmentId: 'env_timeout',
      hookToken: TOKEN,
      caCerts: [pki.caCert],
      allowlist: new Allowlist([{ domain: 'slow.hookbox.test' }]),
      connectTimeoutMs: 300,
      testing: { trustedUpstreams: { 'slow.hookbox.test': addresses } },
      addressPolicy: { hostAddresses: () => [] },
      onRecord: (record) => records.push(record),
    },
    { port: 0 },
  );
  proxies.push(proxy);
  return { proxy, records };
}

async function hookRequest(proxy: EgressProxy) {
  const target = `https://slow.hookbox.test:${port}/gate`;
  const outgoing = request({
    host: '127.0.0.1',
    port: proxy.port,
    method: 'POST',
    path: target,
    headers: { host: `slow.hookbox.test:${port}`, [HOOK_TOKEN_HEADER]: TOKEN },
    agent: false,
  });
  outgoing.end('{}');
  const [answer] = (await once(outgoing, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of answer) body += chunk;
  return { status: answer.statusCode, rule: answer.headers[RULE_HEADER], body };
}

describe('egress proxy connect timeout', () => {
  it('an address that does not answer in time is skipped: the next address serves the request', async () => {
    const { proxy } = await proxyFor(['127.0.0.2', '127.0.0.1']);
    const answer = await hookRequest(proxy);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('allow');
  });

  it('when no address answers, the refusal is "upstream-timeout" with its own code, not a TLS failure', async () => {
    const { proxy, records } = await proxyFor(['127.0.0.2']);
    const answer = await hookRequest(proxy);
    expect(answer.status).toBe(502);
    expect(answer.rule).toBe('upstream-timeout');
    expect(answer.body).toContain('ECONNECT_TIMEOUT');
    expect(records.at(-1)).toMatchObject({ decision: 'failed', rule: 'upstream-timeout' });
  });
});
