// The PostgreSQL state store against a real server: migrations versioned and applied once (also by
// replicas starting together), rows read back as written, bad URLs refused by name.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/state/migrations.js';
import { MIGRATION_TABLE, SqlStateStore } from '../../src/state/sql-state-store.js';
import { checkStateUrl, redactUrl } from '../../src/state/state-url.js';
import { Credentials } from '../../src/credentials/credentials.js';
import { credentialRowsOf } from '../../src/credentials/rows.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { StateInteractionStore } from '../../src/interactions/state-interaction-store.js';
import { startPostgres, type Postgres } from './postgres.js';

let server: Postgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describe('PostgreSQL state', () => {
  it('replicas opening at once apply each migration exactly once, in order', async () => {
    const stores = await Promise.all([1, 2, 3].map(() => SqlStateStore.openUrl(server.url)));
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      const rows = (await client.query(`SELECT name FROM ${MIGRATION_TABLE} ORDER BY name`)).rows;
      await client.end();
      expect(rows).toEqual(MIGRATIONS.map(({ name }) => ({ name })));
      expect(await stores[0]!.appliedMigrations()).toEqual(MIGRATIONS.map(({ name }) => name));
      expect(await stores[1]!.migrate()).toEqual([]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('environments and interactions read back as written, from another connection', async () => {
    const a = await SqlStateStore.openUrl(server.url, { controllerId: 'ctl_a' });
    const b = await SqlStateStore.openUrl(server.url);
    try {
      const row = {
        id: 'env_pg1',
        container_id: 'c1',
        created: '2026-01-01T00:00:00.000Z',
        settings: { vocabulary: '2026-09', timeoutMs: 1000 },
        hooks_json: '{"gates":{}}',
        last_used: '2026-01-01T00:00:00.000Z',
        // The tenant that made it is kept (docs/tenants.md, "Ownership").
        tenant: 'tenant-a',
      };
      await a.saveEnvironment(row);
      expect(await b.environment('env_pg1')).toEqual(row);
      await a.setHooksJson('env_pg1', null);
      await a.touchEnvironment('env_pg1', '2026-01-02T00:00:00.000Z');
      expect(await b.environment('env_pg1')).toMatchObject({
        hooks_json: null,
        last_used: '2026-01-02T00:00:00.000Z',
      });
      const interaction = {
        id: 'int_1',
        environment_id: 'env_pg1',
        status: 'in_progress',
        body: { id: 'int_1', nested: { a: [1, 2] } },
        updated: '2026-01-01T00:00:01.000Z',
        tenant: 'tenant-a',
      };
      await a.saveInteraction(interaction);
      expect(await b.interaction('int_1')).toEqual(interaction);
      expect((await b.interactionsWithStatus('in_progress')).map((r) => r.id)).toEqual(['int_1']);
      // The console's history after a restart: newest first, as many as asked, whole interactions.
      const later = {
        id: 'int_2',
        object: 'interaction',
        status: 'completed',
        agent: 'scripted',
        environment_id: 'env_pg1',
        steps: [{ type: 'model_output', content: [{ type: 'text', text: 'kept' }] }],
        output_text: 'kept',
        created: '2026-01-01T00:00:02.000Z',
        updated: '2026-01-01T00:00:02.000Z',
      } as unknown as Interaction;
      await new StateInteractionStore(a).put(later, 'tenant-b');
      expect((await b.recentInteractions(5)).map((r) => r.id)).toEqual(['int_2', 'int_1']);
      expect((await b.recentInteractions(1)).map((r) => r.id)).toEqual(['int_2']);
      // int_1's body is no interaction: left out of the list, not fatal to it.
      expect(await new StateInteractionStore(b).recent(5)).toEqual([
        {
          interaction: expect.objectContaining({ id: 'int_2', output_text: 'kept' }) as object,
          tenant: 'tenant-b',
        },
      ]);
      await b.deleteEnvironment('env_pg1');
      expect(await a.environment('env_pg1')).toBeUndefined();
      expect(await a.environments()).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('snapshot records read back as written, from another connection, and go when deleted', async () => {
    const a = await SqlStateStore.openUrl(server.url);
    const b = await SqlStateStore.openUrl(server.url);
    try {
      const row = {
        id: 'snap_pg1',
        environment_id: 'env_pg1',
        volume: 'hookbox-snap_pg1',
        created: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-01-02T00:00:00.000Z',
        tenant: 'alice',
        recipe: {
          vocabulary: '2026-05' as const,
          template: 'default',
          toolTimeoutMs: 60_000,
          outputCapBytes: 1024,
          backgroundProcesses: false,
          sandbox: { diskMb: 64 },
          hooksJson: '{}',
        },
        networked: true,
      };
      await a.snapshots.save(row);
      expect(await b.snapshots.get('snap_pg1')).toEqual(row);
      expect((await b.snapshots.list()).map((saved) => saved.id)).toContain('snap_pg1');
      await b.snapshots.delete('snap_pg1');
      expect(await a.snapshots.get('snap_pg1')).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a URL that is not postgres:// is refused naming the flag; passwords never shown', () => {
    expect(() => checkStateUrl('mysql://x@y/z')).toThrow(/--state-url: must be a postgres:\/\//);
    expect(() => checkStateUrl('not a url')).toThrow(/--state-url/);
    expect(redactUrl('postgres://u:secret@h:5432/d')).toBe('postgres://u:***@h:5432/d');
  });
  it('credentials are stored sealed and read back from another replica (docs/credentials.md)', async () => {
    const key = 'a-postgres-test-passphrase-of-32-characters+';
    const value = 'pg-credential-value-3b7e';
    const a = await SqlStateStore.openUrl(server.url);
    const b = await SqlStateStore.openUrl(server.url);
    try {
      const made = await new Credentials(credentialRowsOf(a.credentials), () => key).create(
        { name: 'pg', value, headers: { Authorization: 'Bearer {{value}}' } },
        'alice',
      );
      const other = new Credentials(credentialRowsOf(b.credentials), () => key);
      expect(await other.get(made.id)).toEqual(made);
      expect((await other.list()).map((credential) => credential.id)).toContain(made.id);
      expect(await other.open(made.id, 'alice', 'f')).toEqual({
        value,
        headers: { Authorization: `Bearer ${value}` },
      });
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      const rows = (await client.query('SELECT * FROM credentials')).rows;
      await client.end();
      expect(JSON.stringify(rows)).toContain(made.id);
      expect(JSON.stringify(rows)).not.toContain(value);
      expect(await other.delete(made.id)).toBe(true);
      expect(
        await new Credentials(credentialRowsOf(a.credentials), () => key).get(made.id),
      ).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
