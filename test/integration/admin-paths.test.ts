// The console and /metrics are for admin keys only, whatever spelling of the path a tenant sends
// (docs/security.md, "Admin routes and request paths"): percent-encoded letters, an absolute-form
// target, a fragment, `/v1` for `/v1beta`, doubled slashes and dot segments. Every variant of every
// admin route is sent raw (fetch would tidy it) to a real `hookbox serve` with a real environment of
// another tenant in it: a tenant's key never reads a byte of it, an admin key still does.
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';
import { apiErrorOf } from './api-error.js';

const ADMIN = 'admin-paths-admin-key';
const ALICE = 'admin-paths-alice-key';
const BOB = 'admin-paths-bob-key';
let server: RunningServer;
let bobsEnvironment: string;

beforeAll(async () => {
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-admin-paths-')),
    logger,
    startEngine: false,
  });
  const tenant = (name: string, key: string, role: 'admin' | 'tenant') => ({
    name,
    role,
    digest: keyDigest(key),
    quotas: DEFAULT_TENANT_QUOTAS,
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [],
    tenantKeys: [
      tenant('ops', ADMIN, 'admin'),
      tenant('alice', ALICE, 'tenant'),
      tenant('bob', BOB, 'tenant'),
    ],
    logger,
    controller,
  });
  const made = await fetch(`${server.url}/v1beta/interactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': BOB },
    body: JSON.stringify({
      agent: 'scripted',
      input: [
        { type: 'code_execution_call', arguments: { code: 'echo bobs-secret', language: 'bash' } },
      ],
      environment: 'remote',
    }),
  });
  expect(made.status).toBe(200);
  bobsEnvironment = ((await made.json()) as { environment_id: string }).environment_id;
});
afterAll(async () => {
  await server?.close();
});

/** Whether an answer carries what only admins may read (an error may echo the path it was sent). */
const leaks = (body: string) =>
  ['"hook_groups"', '"calls"', '"interactions"', 'hookbox_http_requests_total', '"egress"'].some(
    (marker) => body.includes(marker),
  );

interface RawAnswer {
  status: number;
  body: string;
}

/** One GET with `target` sent exactly as given (no URL parsing on the way). */
function rawGet(target: string, key: string | undefined): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'GET',
        path: target,
        headers: { host: `127.0.0.1:${server.port}`, ...(key ? { 'x-goog-api-key': key } : {}) },
      },
      (response) => {
        // The console's event stream never ends: its status is the answer.
        if (String(response.headers['content-type']).startsWith('text/event-stream')) {
          response.destroy();
          resolve({ status: response.statusCode ?? 0, body: '' });
          return;
        }
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Ways to spell `path` that the router reads as `path` (the first letter escaped, and so on). */
function sameRoute(path: string): string[] {
  const [first, ...rest] = path.slice(1);
  const escaped = (char: string, upper: boolean) => {
    const hex = char.charCodeAt(0).toString(16);
    return `%${upper ? hex.toUpperCase() : hex}`;
  };
  return [
    `/${escaped(first!, false)}${rest.join('')}`,
    `/${escaped(first!, true)}${rest.join('')}`,
    `/${[...path.slice(1)].map((char) => (char === '/' ? char : escaped(char, false))).join('')}`,
    `http://127.0.0.1:${server.port}${path}`,
    `http://127.0.0.1:${server.port}/${escaped(first!, false)}${rest.join('')}`,
    `${path}#x`,
    `${path}?x=1`,
  ];
}

/** Spellings with an empty or dot segment: refused as a path, for every key. */
function oddSegments(path: string): string[] {
  const tail = path.slice(1);
  return [
    `/${path}`,
    path.replace(/\/([^/]*)$/, '//$1'),
    `/.${path}`,
    `/v1beta/..${path}`,
    `/v1/..${path}`,
    `/console/static/..${path}`,
    `/%2e%2e${path}`,
    path.replace(/\/([^/]*)$/, '/%2E/$1'),
    `/x/%2e%2e/${tail}`,
  ];
}

const ADMIN_ROUTES = () => [
  '/metrics',
  '/console/api/overview',
  `/console/api/environments/${bobsEnvironment}`,
  '/console/api/interactions',
  '/console/api/gate-health',
  '/console/api/egress',
  '/console/api/events',
];

describe('admin routes under every spelling of their path', () => {
  it('a tenant key is refused (403) on every spelling the router reads as an admin route', async () => {
    for (const route of ADMIN_ROUTES()) {
      for (const target of [route, ...sameRoute(route)]) {
        const answer = await rawGet(target, ALICE);
        expect(answer.status, target).toBe(403);
        expect(apiErrorOf(JSON.parse(answer.body)).code, target).toBe('permission_denied');
        expect(leaks(answer.body), target).toBe(false);
      }
    }
  });

  it('an admin key still reads every admin route under those spellings', async () => {
    for (const route of ADMIN_ROUTES()) {
      for (const target of [route, ...sameRoute(route)]) {
        const answer = await rawGet(target, ADMIN);
        expect(answer.status, target).toBe(200);
      }
    }
    const overview = await rawGet('/%63onsole/api/overview', ADMIN);
    expect(overview.body).toContain(bobsEnvironment);
    const metrics = await rawGet('/%6detrics', ADMIN);
    expect(metrics.body).toContain('hookbox_http_requests_total');
  });

  it('doubled slashes and dot segments are a 400 naming path, for tenant and admin alike', async () => {
    for (const route of ADMIN_ROUTES()) {
      for (const target of oddSegments(route)) {
        for (const key of [ALICE, ADMIN, undefined]) {
          const answer = await rawGet(target, key);
          expect(answer.status, `${target} ${key}`).toBe(400);
          const error = apiErrorOf(JSON.parse(answer.body));
          expect(error.field, target).toBe('path');
          expect(leaks(answer.body), target).toBe(false);
        }
      }
    }
  });

  it('a malformed escape is the router’s 400, never a second decoding into an admin route', async () => {
    for (const target of ['/%%36%64etrics', '/%%36%33onsole/api/overview', '/%6']) {
      const answer = await rawGet(target, ALICE);
      expect(answer.status, target).toBe(400);
      expect(answer.body, target).not.toContain('hookbox_http_requests_total');
    }
  });

  it('public paths are judged on the same path: a spelling of an admin route is not public', async () => {
    for (const target of ['/console/static/%2e%2e/api/overview', '/%63onsole/api/overview']) {
      const answer = await rawGet(target, undefined);
      expect(answer.status, target).toBeGreaterThanOrEqual(400);
      expect(answer.status, target).toBeLessThan(500);
      expect(leaks(answer.body), target).toBe(false);
    }
    expect((await rawGet('/%63onsole/api/overview', undefined)).status).toBe(401);
    // …and the public paths stay public under their spellings.
    expect((await rawGet('/%68ealthz', undefined)).status).toBe(200);
    expect((await rawGet('/%63onsole', undefined)).status).toBe(200);
  });

  it('a tenant still uses its own routes under /v1 and escaped spellings', async () => {
    const own = await rawGet('/v1/%65nvironments', BOB);
    expect(own.status).toBe(200);
    expect(own.body).toContain(bobsEnvironment);
    const stranger = await rawGet(`/v1/environments/${bobsEnvironment}`, ALICE);
    expect(stranger.status).toBe(404);
  });
});
