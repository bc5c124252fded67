// The egress proxy's plain HTTP in absolute form: forwarding, hop headers, credential placeholders,
// refusals. Test upstreams and proxies: egress-proxy-helpers.ts.
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Allowlist } from '../../../src/network/allowlist.js';
import { HOOK_TOKEN_HEADER, RULE_HEADER } from '../../../src/network/egress-proxy.js';
import {
  closeUpstreams,
  httpPort,
  httpSeen,
  SECRET,
  startProxy,
  startUpstreams,
  TOKEN,
  viaProxy,
  waitFor,
} from './egress-proxy-helpers.js';

beforeAll(startUpstreams);
afterAll(closeUpstreams);

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
