// The egress proxy's CONNECT tunnels: allowlist, address rules after resolution, raw IPs, failures.
// Test upstreams and proxies: egress-proxy-helpers.ts.
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Allowlist } from '../../../src/network/allowlist.js';
import { RULE_HEADER } from '../../../src/network/egress-proxy.js';
import {
  closedPort,
  closeUpstreams,
  connectVia,
  echoPort,
  startProxy,
  startUpstreams,
  waitFor,
} from './egress-proxy-helpers.js';

beforeAll(startUpstreams);
afterAll(closeUpstreams);

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
