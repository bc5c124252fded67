// The egress proxy's hook requests (https:// in absolute form with the hook token): its own TLS to
// the upstream, transform headers on the wire, certificate checks. Test upstreams and proxies:
// egress-proxy-helpers.ts.
import { createServer as createHttpsServer } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Allowlist } from '../../../src/network/allowlist.js';
import { HOOK_TOKEN_HEADER, RULE_HEADER } from '../../../src/network/egress-proxy.js';
import {
  closeUpstreams,
  hookUrl,
  httpsSeen,
  listen,
  otherPki,
  pki,
  SECRET,
  servers,
  startProxy,
  startUpstreams,
  TOKEN,
  viaProxy,
  waitFor,
  wrongNamePort,
} from './egress-proxy-helpers.js';

beforeAll(startUpstreams);
afterAll(closeUpstreams);

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
