// A database made by the code before the one store opens with today's: a PostgreSQL database
// numbered by `hookbox_migrations` (versions 1–9) and a SQLite state file whose tables each store
// created for itself. Every record reads back, nothing is lost, and an old interaction takes new
// steps (docs/operations.md, "Upgrades").
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/interactions/schema.js';
import { StateInteractionStore } from '../../src/interactions/state-interaction-store.js';
import { MIGRATIONS } from '../../src/state/migrations.js';
import { SqlStateStore } from '../../src/state/sql-state-store.js';
import { startPostgres, type Postgres } from './postgres.js';
import {
  OLD_POSTGRES_MIGRATIONS,
  OLD_POSTGRES_VERSION_TABLE,
  OLD_SQLITE_SCHEMA,
} from './state-before-one-store.js';

const TABLES = [
  'environments',
  'interactions',
  'approvals',
  'approval_grants',
  'credentials',
  'snapshots',
  'agents',
];

const step = (text: string) => ({ type: 'model_output', content: [{ type: 'text', text }] });
const body = (id: string, steps: unknown[]) => ({
  id,
  object: 'interaction',
  status: 'completed',
  agent: 'scripted',
  environment_id: 'env_old',
  steps,
  output_text: 'old',
  created: '2026-01-01T00:00:00.000Z',
  updated: '2026-01-01T00:00:00.000Z',
});
const approval = {
  call_id: 'call_old',
  interaction_id: 'int_old',
  environment_id: 'env_old',
  tool_call: { name: 'exec', args: { cmd: 'ls' } },
  hooks: [{ group: 'g', handler: 'h', reason: null, force: false }],
  reason: 'ask',
  status: 'pending',
  created: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-01T01:00:00.000Z',
};
const recipe = { vocabulary: '2026-05', template: 'default', sandbox: { diskMb: 64 } };
const config = { type: 'api_key', updated: '2026-01-01T00:00:00.000Z' };

/**
 * Rows as the old code wrote them, in either database (`$n` placeholders; JSON as text; a flag as
 * the database keeps it).
 */
const oldRows = (yes: boolean | number): [string, unknown[]][] => [
  [
    'INSERT INTO environments (id, container_id, created, settings, hooks_json, last_used, tenant) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [
      'env_old',
      'c1',
      '2026-01-01T00:00:00.000Z',
      '{"timeoutMs":5}',
      '{}',
      '2026-01-01T00:00:00.000Z',
      'alice',
    ],
  ],
  [
    'INSERT INTO interactions (id, environment_id, status, body, updated, tenant) VALUES ($1, $2, $3, $4, $5, $6)',
    [
      'int_old',
      'env_old',
      'completed',
      JSON.stringify(body('int_old', [step('one'), step('two')])),
      '2026-01-01T00:00:00.000Z',
      'alice',
    ],
  ],
  [
    'INSERT INTO approvals (call_id, interaction_id, environment_id, status, body, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    ['call_old', 'int_old', 'env_old', 'pending', JSON.stringify(approval), approval.expires_at],
  ],
  [
    'INSERT INTO approval_grants (environment_id, key, created) VALUES ($1, $2, $3)',
    ['env_old', 'grant-key', '2026-01-01T00:00:00.000Z'],
  ],
  [
    'INSERT INTO snapshots (id, environment_id, volume, created, expires_at, tenant, recipe, networked) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [
      'snap_old',
      'env_old',
      'hookbox-snap_old',
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      'alice',
      JSON.stringify(recipe),
      yes,
    ],
  ],
  [
    'INSERT INTO credentials (id, tenant, name, header_names, has_value, created, secret, config) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [
      'cred_old',
      'alice',
      'k',
      '["X-Key"]',
      yes,
      '2026-01-01T00:00:00.000Z',
      'sealed',
      JSON.stringify(config),
    ],
  ],
  [
    'INSERT INTO agents (id, tenant, created, body) VALUES ($1, $2, $3, $4)',
    ['agent-old', 'bob', '2026-01-01T00:00:00.000Z', '{"base_agent":"scripted"}'],
  ],
];

/** Reads everything back through today's store, and appends a step to the old interaction. */
async function expectEverythingKept(state: SqlStateStore): Promise<void> {
  expect(await state.environment('env_old')).toEqual({
    id: 'env_old',
    container_id: 'c1',
    created: '2026-01-01T00:00:00.000Z',
    settings: { timeoutMs: 5 },
    hooks_json: '{}',
    last_used: '2026-01-01T00:00:00.000Z',
    tenant: 'alice',
  });
  const interactions = new StateInteractionStore(state);
  expect((await interactions.get('int_old'))?.steps).toEqual([step('one'), step('two')]);
  expect(await interactions.tenantOf('int_old')).toBe('alice');
  await interactions.appendStep('int_old', 2, step('three') as Step);
  expect((await interactions.get('int_old'))?.steps).toEqual([
    step('one'),
    step('two'),
    step('three'),
  ]);
  expect(await state.approvals.get('call_old')).toEqual(approval);
  expect(await state.approvals.hasGrant('env_old', 'grant-key')).toBe(true);
  expect(await state.credentials.get('cred_old')).toMatchObject({
    tenant: 'alice',
    header_names: ['X-Key'],
    has_value: true,
    secret: 'sealed',
    config,
  });
  expect(await state.snapshots.get('snap_old')).toMatchObject({
    recipe,
    networked: true,
    tenant: 'alice',
  });
  expect(await state.agents.get('agent-old')).toMatchObject({
    tenant: 'bob',
    body: { base_agent: 'scripted' },
  });
  expect(await state.appliedMigrations()).toEqual(MIGRATIONS.map(({ name }) => name));
}

describe('upgrading the state', () => {
  let postgres: Postgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  it('a PostgreSQL database at hookbox_migrations version 9 opens with its rows, and takes new steps', async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      await client.query(OLD_POSTGRES_VERSION_TABLE);
      for (const migration of OLD_POSTGRES_MIGRATIONS) {
        await client.query(migration.sql);
        await client.query('INSERT INTO hookbox_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
      }
      for (const [query, values] of oldRows(true)) await client.query(query, values);
      const counts = await countRows((q) =>
        client.query<Record<string, unknown>>(q).then((r) => r.rows),
      );

      const state = await SqlStateStore.openUrl(postgres.url);
      try {
        await expectEverythingKept(state);
      } finally {
        await state.close();
      }
      expect(
        await countRows((q) => client.query<Record<string, unknown>>(q).then((r) => r.rows)),
      ).toEqual(counts);
      // The old version table stays as it was: history, no longer read.
      expect(
        (await client.query('SELECT count(*)::int AS n FROM hookbox_migrations')).rows,
      ).toEqual([{ n: 9 }]);
    } finally {
      await client.end();
    }
  });

  it('a SQLite state file made by the stores that each opened their own connection opens with its rows', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hookbox-upgrade-')), 'state.db');
    const old = new Database(path);
    old.exec(OLD_SQLITE_SCHEMA);
    for (const [query, values] of oldRows(1))
      old.prepare(query.replace(/\$\d+/g, '?')).run(...values);
    const counts = await countRows(async (q) => old.prepare(q).all());
    old.close();

    const state = await SqlStateStore.openFile(path);
    try {
      await expectEverythingKept(state);
    } finally {
      await state.close();
    }
    const after = new Database(path, { readonly: true });
    expect(await countRows(async (q) => after.prepare(q).all())).toEqual(counts);
    after.close();
  });
});

async function countRows(
  all: (query: string) => Promise<unknown[]>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = (await all(`SELECT * FROM ${table}`)).length;
  return counts;
}
