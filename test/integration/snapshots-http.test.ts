// Snapshots and forks over HTTP (docs/environments.md, "Snapshots and forks"): a snapshot made
// into a new environment with `environment.snapshot_id` keeps files and gates; forks; list, get,
// delete and 404s; another tenant's snapshot is a 404; bad counts and snapshot ids are 400s; a
// fork past the environment quota is a 429. Then the TTL, and a controller restart (state file).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';
import { Hookbox, HookboxApiError } from '../../src/client/index.js';
import { fetchJson, type InteractionBody, type SnapshotBody } from './api-helpers.js';
import { bash } from './helpers.js';
import { FILL, GATED, LIST } from './snapshot-fixtures.js';
import { apiErrorOf } from './api-error.js';
import { execResultOf } from '../../src/tools/results.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const ALICE = 'snapshots-alice-key';
const BOB = 'snapshots-bob-key';
const code = (text: string) => ({
  type: 'code_execution_call' as const,
  arguments: { code: text, language: 'bash' },
});

describe('snapshots and forks over HTTP', () => {
  let server: RunningServer;
  const as = (key: string) => ({ 'x-goog-api-key': key });
  const call = (key: string, method: string, path: string, body?: object) =>
    fetchJson(server, method, path, body, as(key));

  beforeAll(async () => {
    const controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-snap-http-')),
      logger,
      startEngine: false,
    });
    const quotas = { ...DEFAULT_TENANT_QUOTAS, environments: 4 };
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      apiKeys: [],
      tenantKeys: [
        { name: 'alice', role: 'tenant', digest: keyDigest(ALICE), quotas },
        { name: 'bob', role: 'tenant', digest: keyDigest(BOB), quotas },
      ],
      logger,
      controller,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('snapshot, restore with snapshot_id, fork, list, delete; strangers get 404', async () => {
    const made = await call(ALICE, 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code(FILL), code(LIST)],
      environment: { type: 'remote', sources: GATED },
    });
    expect(made.status, made.text).toBe(200);
    const source = (made.json as InteractionBody).environment_id;
    const expected = (made.json as InteractionBody).steps.at(-1)?.structured_result?.stdout ?? '';
    expect(expected).toContain('./link 777 tool l /etc/hostname');

    const taken = await call(ALICE, 'POST', `/v1beta/environments/${source}/snapshots`);
    expect(taken.status, taken.text).toBe(201);
    const snapshot = taken.json as SnapshotBody;
    const id = snapshot.snapshot_id;
    expect(taken.json).toMatchObject({
      object: 'snapshot',
      environment_id: source,
      tenant: 'alice',
      has_hooks: true,
      network: false,
    });
    expect(Date.parse(snapshot.expires_at) - Date.parse(snapshot.created)).toBe(86_400_000);

    // Bob cannot see it, use it, or delete it: the 404 of a missing one.
    for (const [method, path] of [
      ['GET', `/v1beta/snapshots/${id}`],
      ['DELETE', `/v1beta/snapshots/${id}`],
    ] as const) {
      const answer = await call(BOB, method, path);
      expect(answer.status, answer.text).toBe(404);
      expect(apiErrorOf(answer.json).message).toContain(`no snapshot "${id}"`);
    }
    expect(
      ((await call(BOB, 'GET', '/v1beta/snapshots')).json as { snapshots: unknown[] }).snapshots,
    ).toEqual([]);
    const stolen = await call(BOB, 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code('ls')],
      environment: { type: 'remote', snapshot_id: id },
    });
    expect(stolen.status, stolen.text).toBe(404);
    expect(apiErrorOf(stolen.json).field).toBe('environment.snapshot_id');
    expect((await call(BOB, 'POST', `/v1beta/environments/${source}/fork`)).status).toBe(404);

    // Alice makes a new environment from it: same files, same gate.
    const restored = await call(ALICE, 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code(LIST), code('echo forbidden')],
      environment: { type: 'remote', snapshot_id: id },
    });
    expect(restored.status, restored.text).toBe(200);
    const restoredInteraction = restored.json as InteractionBody;
    expect(restoredInteraction.environment_id).not.toBe(source);
    const results = restoredInteraction.steps.filter(
      (step) => step.type === 'code_execution_result',
    );
    expect(results[0]?.structured_result?.stdout).toBe(expected);
    expect(results[1]?.blocked).toBe(true);

    // Through the TS client: list, get, fork, delete.
    const client = new Hookbox({ baseUrl: server.url, apiKey: ALICE });
    expect((await client.snapshots.list()).snapshots.map((s) => s.snapshot_id)).toEqual([id]);
    expect((await client.snapshots.get(id)).environment_id).toBe(source);
    const forked = await client.snapshots.fork(source, 2);
    expect(forked.environments).toHaveLength(2);
    for (const { environment_id } of forked.environments)
      expect(await client.environments.files.get(environment_id, 'a.txt')).toEqual(
        new TextEncoder().encode('one\n'),
      );
    // Alice holds 4 environments now (source, restored, 2 forks): her quota; a fork would pass it.
    const past = await call(ALICE, 'POST', `/v1beta/environments/${source}/fork?count=1`);
    expect(past.status, past.text).toBe(429);
    expect(apiErrorOf(past.json).details.quota).toBe('environments');
    for (const { environment_id } of forked.environments)
      await client.environments.delete(environment_id);
    await client.environments.delete(restoredInteraction.environment_id);

    await client.snapshots.delete(id);
    const gone = await call(ALICE, 'GET', `/v1beta/snapshots/${id}`);
    expect(gone.status).toBe(404);
    await expect(client.snapshots.delete(id)).rejects.toBeInstanceOf(HookboxApiError);
    await client.environments.delete(source);
  });

  it('refuses bad counts, bad snapshot ids and options beside snapshot_id with 400s', async () => {
    const made = await call(ALICE, 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code('true')],
      environment: 'remote',
    });
    const source = (made.json as InteractionBody).environment_id;
    for (const count of ['0', '11', 'two', '1.5', '-1']) {
      const bad = await call(ALICE, 'POST', `/v1beta/environments/${source}/fork?count=${count}`);
      expect(bad.status, bad.text).toBe(400);
      expect(apiErrorOf(bad.json).field).toBe('count');
      expect(apiErrorOf(bad.json).message).toContain('count: must be a whole number from 1 to 10');
    }
    const unknownQuery = await call(ALICE, 'POST', `/v1beta/environments/${source}/fork?n=2`);
    expect(unknownQuery.status).toBe(400);
    const unknown = await call(ALICE, 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code('true')],
      environment: { type: 'remote', snapshot_id: 'snap_aaaaaaaaaaaaaaaaaaaa' },
    });
    expect(unknown.status, unknown.text).toBe(404);
    expect(apiErrorOf(unknown.json).message).toContain('environment.snapshot_id: no snapshot');
    const mixed = await call(ALICE, 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code('true')],
      environment: { type: 'remote', snapshot_id: 'snap_aaaaaaaaaaaaaaaaaaaa', template: 'full' },
    });
    expect(mixed.status, mixed.text).toBe(400);
    expect(apiErrorOf(mixed.json).field).toBe('environment.template');
    expect((await call(ALICE, 'GET', '/v1beta/snapshots/snap_nope')).status).toBe(404);
    expect((await call(ALICE, 'DELETE', `/v1beta/environments/${source}`)).status).toBe(200);
  });
});

describe('snapshot lifetime', () => {
  it('expires after its TTL: gone from the list, its volume removed', async () => {
    const controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-snap-ttl-')),
      logger,
      startEngine: false,
      snapshots: { ttlMs: 1500 },
    });
    try {
      const environment = await controller.createEnvironment({});
      const snapshot = await controller.snapshotEnvironment(environment.id);
      expect((await controller.snapshots.list()).map((row) => row.id)).toEqual([snapshot.id]);
      await new Promise((resolve) => setTimeout(resolve, 1700));
      expect(await controller.snapshots.get(snapshot.id)).toBeUndefined();
      expect(await controller.snapshots.list()).toEqual([]);
      await expect(controller.createEnvironment({ snapshot: snapshot.id })).rejects.toMatchObject({
        code: 'not_found',
      });
      const volumes = await controller.backend.runtime.listVolumes([
        `dev.hookbox.snapshot=${snapshot.id}`,
      ]);
      expect(volumes).toEqual([]);
    } finally {
      await controller.close();
    }
  });

  it('survives a controller restart with a state file', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-snap-restart-'));
    const stateFile = join(home, 'state.sqlite');
    const first = await Controller.start({ home, logger, startEngine: false, stateFile });
    const environment = await first.createEnvironment({ sources: GATED, vocabulary: '2026-05' });
    await environment.call(bash(FILL));
    const expected = execResultOf(await environment.call(bash(LIST))).stdout;
    const snapshot = await first.snapshotEnvironment(environment.id);
    await first.deleteEnvironment(environment.id);
    await first.detach();

    const second = await Controller.start({ home, logger, startEngine: false, stateFile });
    try {
      const found = await second.snapshots.get(snapshot.id);
      expect(found?.environment_id).toBe(environment.id);
      const restored = await second.createEnvironment({ snapshot: snapshot.id });
      expect(execResultOf(await restored.call(bash(LIST))).stdout).toBe(expected);
      expect((await restored.call(bash('echo forbidden'))).blocked).toBe(true);
      await second.snapshots.delete(found!);
    } finally {
      await second.close();
    }
  });
});
