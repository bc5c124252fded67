// The egress proxy per environment (its own rules and secrets; a new allowlist) and its lifecycle
// (Unix socket, close, no protocol upgrades). Test upstreams and proxies: egress-proxy-helpers.ts.
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Allowlist } from '../../../src/network/allowlist.js';
import { EgressProxy, HOOK_TOKEN_HEADER, RULE_HEADER } from '../../../src/network/egress-proxy.js';
import {
  closeUpstreams,
  echoPort,
  hookUrl,
  httpPort,
  httpsPort,
  httpsSeen,
  startProxy,
  startUpstreams,
  TOKEN,
  viaProxy,
} from './egress-proxy-helpers.js';

beforeAll(startUpstreams);
afterAll(closeUpstreams);

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
