// Two tenants and an admin on one real `hookbox serve` (real containers): every endpoint answers a
// stranger's id with the same 404 as a missing one, works for the owner and the admin; lists are
// filtered; the audit log carries the tenant (and the admin as actor); the environments quota and
// the server-wide ceiling answer 429 with Retry-After and leave nothing half-made.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { auditLogPath, readAuditLog } from '../../src/record/audit-log.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { LABEL_CONTROLLER, LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { loadTenantKeys, startServer, type RunningServer } from '../../src/server/index.js';
import { codeCall, scripted, SECURITY_GATE_REQUEST } from '../unit/interactions/gemini-requests.js';
import { apiErrorOf } from './api-error.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const docker = new DockerContainerClient(logger);
const ALICE = 'alice-key-0001';
const BOB = 'bob-key-00002';
const ADMIN = 'admin-key-0003';
const MANY = 'many-key-00004';
const SMALL = 'small-key-0005';

// The structured keys file: names, a key given as its SHA-256, roles, quotas.
const KEYS_YAML = `keys:
  - name: alice
    key: ${ALICE}
    quotas: {environments: 2}
  - name: bob
    sha256: ${(await import('node:crypto')).createHash('sha256').update(BOB).digest('hex')}
    quotas: {environments: 2}
  - name: ops
    key: ${ADMIN}
    role: admin
  - name: many
    key: ${MANY}
    quotas: {environments: 100, interactions: 100, requests_per_second: 100}
  - name: small
    key: ${SMALL}
    quotas: {disk_mb: 1}
`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = { status: number; json: any; headers: Headers };

async function serverWith(
  maxEnvironments: number,
): Promise<{ server: RunningServer; home: string }> {
  const home = mkdtempSync(join(tmpdir(), 'hookbox-tenants-'));
  const file = join(home, 'keys.yaml');
  writeFileSync(file, KEYS_YAML);
  const controller = await Controller.start({ home, logger, startEngine: false });
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    tenantKeys: loadTenantKeys({ env: {}, file }),
    maxEnvironments,
    logger,
    controller,
  });
  return { server, home };
}

function client(server: RunningServer, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        'x-goog-api-key': key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      json: text ? JSON.parse(text) : undefined,
      headers: response.headers,
    };
  };
}

async function containersOf(server: RunningServer): Promise<number> {
  const filter = [
    `${LABEL_MANAGED}=true`,
    `${LABEL_CONTROLLER}=${server.service.controller.identity.id}`,
    'dev.hookbox.role=sandbox',
  ];
  return (await docker.listContainers(filter)).length;
}

async function resourcesOf(
  server: RunningServer,
): Promise<{ containers: number; volumes: number }> {
  const filter = [
    `${LABEL_MANAGED}=true`,
    `${LABEL_CONTROLLER}=${server.service.controller.identity.id}`,
  ];
  const [containers, volumes] = await Promise.all([
    docker.listContainers(filter),
    docker.listVolumes(filter),
  ]);
  return { containers: containers.length, volumes: volumes.length };
}

const echo = (text: string) => scripted(SECURITY_GATE_REQUEST, codeCall(`echo ${text}`));

describe('ownership between tenants', () => {
  let server: RunningServer;
  let home: string;
  let alice: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;
  let admin: ReturnType<typeof client>;
  let aliceInteraction: Interaction;
  let bobInteraction: Interaction;

  beforeAll(async () => {
    ({ server, home } = await serverWith(20));
    alice = client(server, ALICE);
    bob = client(server, BOB);
    admin = client(server, ADMIN);
    const a = await alice('POST', '/v1beta/interactions', echo('alice'));
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    aliceInteraction = a.json;
    const b = await bob('POST', '/v1beta/interactions', echo('bob'));
    expect(b.status, JSON.stringify(b.json)).toBe(200);
    bobInteraction = b.json;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers another tenant's ids exactly as it answers ids that do not exist", async () => {
    const envA = aliceInteraction.environment_id;
    const intA = aliceInteraction.id;
    const missingEnv = 'env_0000000000000000';
    const missingInt = 'int_0000000000000000';
    // Every way to reach A's environment or interaction, for B, next to the same for a missing id.
    const probes: [string, (id: string) => Promise<Answer>, string, string][] = [
      ['GET interaction', (id) => bob('GET', `/v1beta/interactions/${id}`), intA, missingInt],
      ['GET environment', (id) => bob('GET', `/v1beta/environments/${id}`), envA, missingEnv],
      ['DELETE environment', (id) => bob('DELETE', `/v1beta/environments/${id}`), envA, missingEnv],
      [
        'reuse as environment',
        (id) => bob('POST', '/v1beta/interactions', { ...echo('x'), environment: id }),
        envA,
        missingEnv,
      ],
      [
        'add files to it (environment_id)',
        (id) =>
          bob('POST', '/v1beta/interactions', {
            ...echo('x'),
            environment: {
              type: 'remote',
              environment_id: id,
              sources: [{ type: 'inline', target: 'workspace/planted.txt', content: 'x' }],
            },
          }),
        envA,
        missingEnv,
      ],
      [
        'continue it (previous_interaction_id)',
        (id) =>
          bob('POST', '/v1beta/interactions', {
            agent: 'scripted',
            input: [codeCall('cat /workspace/anything')],
            previous_interaction_id: id,
          }),
        intA,
        missingInt,
      ],
      // The files API and network modes (docs/environments.md) go through the same check.
      ['GET files', (id) => bob('GET', `/v1beta/environments/${id}/files/`), envA, missingEnv],
      [
        'DELETE a file',
        (id) => bob('DELETE', `/v1beta/environments/${id}/files/x.txt`),
        envA,
        missingEnv,
      ],
      ['GET network', (id) => bob('GET', `/v1beta/environments/${id}/network`), envA, missingEnv],
      [
        'PATCH network',
        (id) => bob('PATCH', `/v1beta/environments/${id}/network`, 'disabled'),
        envA,
        missingEnv,
      ],
    ];
    for (const [what, probe, theirs, missing] of probes) {
      const stranger = await probe(theirs);
      const absent = await probe(missing);
      expect(stranger.status, what).toBe(404);
      expect(absent.status, what).toBe(404);
      expect(apiErrorOf(stranger.json).code, what).toBe('not_found');
      // The same message but for the id: nothing tells a stranger's id from a missing one.
      expect(stranger.json.error.message.replace(theirs, 'ID'), what).toBe(
        absent.json.error.message.replace(missing, 'ID'),
      );
    }
    // Nothing B tried reached A's environment: it still answers A, with only A's interaction in it.
    expect((await alice('GET', `/v1beta/environments/${envA}`)).status).toBe(200);
    const files = await alice('POST', '/v1beta/interactions', {
      ...echo('x'),
      input: [codeCall('ls /workspace')],
      environment: envA,
    });
    expect(files.status).toBe(200);
    expect(JSON.stringify(files.json.steps)).not.toContain('planted.txt');
  });

  it('works for the owner and the admin; lists show each tenant its own, the admin all', async () => {
    for (const [who, as] of [
      ['alice', alice],
      ['admin', admin],
    ] as const) {
      const got = await as('GET', `/v1beta/interactions/${aliceInteraction.id}`);
      expect(got.status, who).toBe(200);
      expect(got.json.steps.at(-1).structured_result.stdout, who).toBe('alice\n');
      const info = await as('GET', `/v1beta/environments/${aliceInteraction.environment_id}`);
      expect(info.status, who).toBe(200);
      expect(info.json.tenant, who).toBe('alice');
    }
    const ids = (list: Answer) =>
      list.json.environments.map((e: { environment_id: string }) => e.environment_id);
    expect(ids(await alice('GET', '/v1beta/environments'))).toEqual([
      aliceInteraction.environment_id,
    ]);
    expect(ids(await bob('GET', '/v1beta/environments'))).toEqual([bobInteraction.environment_id]);
    expect(ids(await admin('GET', '/v1beta/environments'))).toEqual(
      expect.arrayContaining([aliceInteraction.environment_id, bobInteraction.environment_id]),
    );
  });

  it("records the tenant on every audit entry, and the admin as actor when it acts on a tenant's", async () => {
    const envB = bobInteraction.environment_id;
    const byAdmin = await admin('POST', '/v1beta/interactions', {
      ...echo('admin-was-here'),
      environment: envB,
    });
    expect(byAdmin.status, JSON.stringify(byAdmin.json)).toBe(200);
    expect(byAdmin.json.steps.at(-1).structured_result.stdout).toBe('admin-was-here\n');
    // Bob cannot read what the admin made, even in his own environment; the admin can.
    expect((await bob('GET', `/v1beta/interactions/${byAdmin.json.id}`)).status).toBe(404);
    expect((await admin('DELETE', `/v1beta/environments/${envB}`)).status).toBe(200);
    const entries = readAuditLog(auditLogPath(home, envB));
    expect(entries.length).toBeGreaterThan(4);
    expect(new Set(entries.map((entry) => entry.tenant))).toEqual(new Set(['bob']));
    const calls = entries.filter((entry) => entry.kind === 'tool_call');
    expect(calls.map((entry) => ('actor' in entry ? entry.actor : undefined))).toEqual([
      undefined,
      'ops',
    ]);
    expect(entries.at(-1)).toMatchObject({ kind: 'environment', event: 'deleted', actor: 'ops' });
    expect(readAuditLog(auditLogPath(home, aliceInteraction.environment_id))[0]).toMatchObject({
      kind: 'environment',
      event: 'created',
      tenant: 'alice',
    });
  });

  it('a tenant at its environments quota gets 429 with Retry-After, makes nothing, and can create again after a delete', async () => {
    const second = await alice('POST', '/v1beta/interactions', echo('second'));
    expect(second.status).toBe(200);
    const before = await containersOf(server);
    const refused = await alice('POST', '/v1beta/interactions', echo('third'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(apiErrorOf(refused.json)).toMatchObject({
      code: 'quota_exceeded',
      httpStatus: 429,
      status: 'RESOURCE_EXHAUSTED',
      details: { quota: 'environments', field: 'environments' },
    });
    expect(refused.json.error.message).toMatch(/^environments: tenant alice has 2 live/);
    expect(await containersOf(server)).toBe(before);
    // Bob's quota is his own.
    const bobs = await bob('POST', '/v1beta/interactions', echo('bob-again'));
    expect(bobs.status).toBe(200);
    expect(
      (await alice('DELETE', `/v1beta/environments/${second.json.environment_id}`)).status,
    ).toBe(200);
    const again = await alice('POST', '/v1beta/interactions', echo('again'));
    expect(again.status).toBe(200);
  });
});

describe('the workspace disk quota', () => {
  it('past disk_mb (as last measured) a tenant gets 429 until it frees the space', async () => {
    const { server } = await serverWith(20);
    const small = client(server, SMALL);
    try {
      const big = await small('POST', '/v1beta/interactions', {
        ...echo('x'),
        input: [codeCall('head -c 3145728 /dev/zero > big.bin && echo written')],
      });
      expect(big.status).toBe(200);
      expect(big.json.steps.at(-1).structured_result.stdout).toBe('written\n');
      await server.service.workspaceDisk!.refresh();
      const refused = await small('POST', '/v1beta/interactions', {
        ...echo('more'),
        environment: big.json.environment_id,
      });
      expect(refused.status).toBe(429);
      expect(apiErrorOf(refused.json).details).toMatchObject({ quota: 'disk_mb' });
      expect(refused.json.error.message).toMatch(
        /^disk_mb: tenant small holds 3 MiB \(workspaces 3 MiB, snapshots 0 MiB\), its quota is 1 MiB/,
      );
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Alice is not affected by small's usage.
      expect((await client(server, ALICE)('POST', '/v1beta/interactions', echo('a'))).status).toBe(
        200,
      );
      expect(
        (await small('DELETE', `/v1beta/environments/${big.json.environment_id}`)).status,
      ).toBe(200);
      await server.service.workspaceDisk!.refresh();
      expect((await small('POST', '/v1beta/interactions', echo('again'))).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('the server-wide ceiling', () => {
  it('holds under 50 concurrent creates: no more containers than the ceiling, clean 429s, nothing left', async () => {
    const CEILING = 4;
    const { server } = await serverWith(CEILING);
    const many = client(server, MANY);
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await containersOf(server));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => many('POST', '/v1beta/interactions', echo(`n${i}`))),
      );
      sampling = false;
      await sampler;
      peak = Math.max(peak, await containersOf(server));
      const made = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(made.length + refused.length).toBe(50);
      expect(made.length).toBe(CEILING);
      expect(peak).toBeLessThanOrEqual(CEILING);
      for (const answer of refused) {
        expect(apiErrorOf(answer.json)).toMatchObject({
          code: 'quota_exceeded',
          details: { quota: 'max_environments' },
        });
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      for (const answer of made)
        expect(
          (await many('DELETE', `/v1beta/environments/${answer.json.environment_id}`)).status,
        ).toBe(200);
      expect(await resourcesOf(server)).toEqual({ containers: 0, volumes: 0 });
    } finally {
      sampling = false;
      await sampler;
      await server.close();
    }
    expect(await resourcesOf(server)).toEqual({ containers: 0, volumes: 0 });
  });
});
