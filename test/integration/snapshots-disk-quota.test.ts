// docs/tenants.md, "What counts against disk_mb": a tenant's snapshots count against its disk
// quota with its workspaces. A snapshot, a fork or a restore that would take it past `disk_mb` is a
// 429 that makes nothing; each snapshot reports its size (create, get, list).
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
import { fetchJson } from './api-helpers.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const KEY = 'snapshots-disk-key';
const MIB = 1024 * 1024;
const code = (text: string) => ({
  type: 'code_execution_call' as const,
  arguments: { code: text, language: 'bash' },
});

describe('snapshots count against the disk quota', () => {
  let server: RunningServer;
  const call = (method: string, path: string, body?: object) =>
    fetchJson(server, method, path, body, { 'x-goog-api-key': KEY });

  beforeAll(async () => {
    const controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-snap-disk-')),
      logger,
      startEngine: false,
    });
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      apiKeys: [],
      tenantKeys: [
        {
          name: 'small',
          role: 'tenant',
          digest: keyDigest(KEY),
          quotas: { ...DEFAULT_TENANT_QUOTAS, diskMb: 40 },
        },
      ],
      logger,
      controller,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a snapshot reports its size; one past disk_mb is a 429 until one is deleted; forks and restores too', async () => {
    // 15 MiB of workspace: a snapshot makes 30, a second one would make 45 of 40.
    const made = await call('POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code('head -c 15728640 /dev/urandom > blob && echo written')],
      environment: { type: 'remote' },
    });
    expect(made.status, made.text).toBe(200);
    const source = made.json.environment_id as string;

    const taken = await call('POST', `/v1beta/environments/${source}/snapshots`);
    expect(taken.status, taken.text).toBe(201);
    const size = taken.json.size_bytes as number;
    expect(size).toBeGreaterThanOrEqual(15 * MIB);
    expect(size).toBeLessThan(16 * MIB);
    const id = taken.json.snapshot_id as string;
    expect((await call('GET', `/v1beta/snapshots/${id}`)).json.size_bytes).toBe(size);
    expect((await call('GET', '/v1beta/snapshots')).json.snapshots).toMatchObject([
      { snapshot_id: id, size_bytes: size },
    ]);

    const refused = await call('POST', `/v1beta/environments/${source}/snapshots`);
    expect(refused.status, refused.text).toBe(429);
    const error = apiErrorOf(refused.json);
    expect([error.httpStatus, error.code, error.field]).toEqual([429, 'quota_exceeded', 'disk_mb']);
    expect(error.message).toMatch(
      /^disk_mb: tenant small holds 30 MiB \(workspaces 15 MiB, snapshots 15 MiB\); a snapshot of env_\w+ would add 15 MiB, past its quota of 40 MiB/,
    );
    // Nothing was made.
    expect((await call('GET', '/v1beta/snapshots')).json.snapshots).toHaveLength(1);

    const fork = await call('POST', `/v1beta/environments/${source}/fork`);
    expect(fork.status, fork.text).toBe(429);
    expect(apiErrorOf(fork.json).field).toBe('disk_mb');
    const restore = await call('POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [code('ls')],
      environment: { type: 'remote', snapshot_id: id },
    });
    expect(restore.status, restore.text).toBe(429);
    expect(apiErrorOf(restore.json).message).toContain(`restoring ${id} would add 15 MiB`);

    // Deleting the snapshot makes room again.
    expect((await call('DELETE', `/v1beta/snapshots/${id}`)).status).toBe(200);
    const again = await call('POST', `/v1beta/environments/${source}/snapshots`);
    expect(again.status, again.text).toBe(201);
    expect(again.json.size_bytes).toBeGreaterThanOrEqual(15 * MIB);
  });
});
