// One contract for the controller's state, run against both databases it can live in: a SQLite
// state file and a real PostgreSQL server (docs/operations.md, "The state file"). Every part of the
// store: environments, interactions appended a step at a time, approvals, credentials, snapshots,
// agents, and the tenant each record keeps.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Interaction, Step } from '../../src/interactions/schema.js';
import { StateInteractionStore } from '../../src/interactions/state-interaction-store.js';
import type { PendingApproval } from '../../src/state/approvals.js';
import { SqlStateStore } from '../../src/state/sql-state-store.js';
import { startPostgres, type Postgres } from './postgres.js';

/** A database to run the contract on: opens a store, and reads raw rows beside it. */
interface Backend {
  open(): Promise<SqlStateStore>;
  rows(query: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
}

let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  await postgres?.stop();
});

const sqlite = (): Backend => {
  const path = join(mkdtempSync(join(tmpdir(), 'hookbox-contract-')), 'state.db');
  let open: SqlStateStore | undefined;
  return {
    async open() {
      // One controller per state file: the previous store of this file is closed first.
      await open?.close();
      open = await SqlStateStore.openFile(path);
      return open;
    },
    async rows(query, values = []) {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare(query.replace(/\$\d+/g, '?')).all(...values) as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
  };
};

const postgresql = (): Backend => {
  let open: SqlStateStore | undefined;
  return {
    async open() {
      await open?.close();
      open = await SqlStateStore.openUrl(postgres.url);
      return open;
    },
    async rows(query, values = []) {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        return (await client.query(query, values)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    },
  };
};

const step = (n: number): Step => ({
  type: 'model_output',
  content: [{ type: 'text', text: `step ${n}` }],
});

const interaction = (id: string, status: Interaction['status']): Interaction => ({
  id,
  object: 'interaction',
  status,
  agent: 'scripted',
  environment_id: 'env_contract',
  steps: [step(0)],
  output_text: '',
  created: '2026-01-01T00:00:00.000Z',
  updated: '2026-01-01T00:00:00.000Z',
});

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgresql],
])('the state store contract on %s', (_name, backendOf) => {
  let backend: Backend;
  let state: SqlStateStore;
  beforeAll(async () => {
    backend = backendOf();
    state = await backend.open();
  });
  afterAll(async () => {
    await state?.close();
  });
  // Each case its own ids: the PostgreSQL database is shared by both runs' cases.
  const id = (name: string) => `${name}_${_name.toLowerCase()}`;

  it('environments: saved, read back by another opening, updated, listed by age, deleted', async () => {
    const row = {
      id: id('env_a'),
      container_id: 'c1',
      created: '2026-01-01T00:00:00.000Z',
      settings: { vocabulary: '2026-09', timeoutMs: 1000, nested: { a: [1, 2] } },
      hooks_json: '{"hooks":{}}',
      last_used: '2026-01-01T00:00:00.000Z',
      tenant: 'alice',
    };
    await state.saveEnvironment(row);
    await state.saveEnvironment({
      ...row,
      id: id('env_b'),
      created: '2026-01-02T00:00:00.000Z',
      tenant: null,
    });
    state = await backend.open();
    expect(await state.environment(row.id)).toEqual(row);
    await state.touchEnvironment(row.id, '2026-01-03T00:00:00.000Z');
    await state.setHooksJson(row.id, null);
    expect(await state.environment(row.id)).toMatchObject({
      hooks_json: null,
      last_used: '2026-01-03T00:00:00.000Z',
      tenant: 'alice',
    });
    const mine = (await state.environments()).filter((each) => each.id.endsWith(id('')));
    expect(mine.map((each) => [each.id, each.tenant])).toEqual([
      [id('env_a'), 'alice'],
      [id('env_b'), null],
    ]);
    await state.deleteEnvironment(row.id);
    expect(await state.environment(row.id)).toBeUndefined();
  });

  it('interactions: a step is one row appended, never a rewrite of the interaction', async () => {
    const store = new StateInteractionStore(state);
    const running = interaction(id('int_steps'), 'in_progress');
    await store.put(running, 'alice');
    const headOf = async () =>
      (await backend.rows('SELECT body FROM interactions WHERE id = $1', [running.id]))[0]!.body;
    const headBefore = JSON.stringify(await headOf());
    for (let n = 1; n <= 30; n++) await store.appendStep(running.id, n, step(n));
    // The head is not written by a step; each step is a row of its own, of its own size.
    expect(JSON.stringify(await headOf())).toBe(headBefore);
    const stored = await backend.rows(
      'SELECT idx, step FROM interaction_steps WHERE interaction_id = $1 ORDER BY idx',
      [running.id],
    );
    expect(stored.map((row) => row.idx)).toEqual([...Array(31).keys()]);
    const sizes = stored.map((row) => JSON.stringify(row.step).length);
    expect(sizes.at(-1)).toBeLessThanOrEqual(sizes[1]! + 1);
    await store.update(running.id, {
      status: 'completed',
      output_text: 'done',
      updated: '2026-01-01T00:00:05.000Z',
      usage: { total_input_tokens: 1, total_output_tokens: 2, total_tokens: 3 },
    });
    state = await backend.open();
    const again = new StateInteractionStore(state);
    const read = await again.get(running.id);
    expect(read).toMatchObject({
      status: 'completed',
      output_text: 'done',
      usage: { total_tokens: 3 },
    });
    expect(read?.steps).toEqual([...Array(31).keys()].map(step));
    expect(await again.tenantOf(running.id)).toBe('alice');
    expect(await again.tenantOf(id('int_none'))).toBeUndefined();
    await again.remove(running.id);
    expect(await again.get(running.id)).toBeUndefined();
    expect(
      await backend.rows('SELECT idx FROM interaction_steps WHERE interaction_id = $1', [
        running.id,
      ]),
    ).toEqual([]);
  });

  it('interactions: the newest first with their tenants; a running one marked interrupted', async () => {
    const store = new StateInteractionStore(state);
    const older = {
      ...interaction(id('int_old'), 'completed'),
      updated: '2030-01-01T00:00:00.000Z',
    };
    const newer = {
      ...interaction(id('int_new'), 'in_progress'),
      updated: '2030-01-02T00:00:00.000Z',
    };
    await store.put(older, null);
    await store.put(newer, 'bob');
    const recent = await store.recent(2);
    expect(recent.map((each) => [each.interaction.id, each.tenant])).toEqual([
      [newer.id, 'bob'],
      [older.id, null],
    ]);
    expect(recent[0]!.interaction.steps).toEqual([step(0)]);
    expect(await store.markInterrupted('stopped')).toBeGreaterThanOrEqual(1);
    expect(await store.get(newer.id)).toMatchObject({
      status: 'failed',
      error: { code: 'controller_restarted', message: 'stopped' },
    });
  });

  it('approvals: pending then answered, read back checked; grants remembered per environment', async () => {
    const approval: PendingApproval = {
      call_id: id('call'),
      interaction_id: id('int_ask'),
      environment_id: id('env_ask'),
      tool_call: { name: 'exec', args: { cmd: 'rm -rf /tmp/x' } },
      hooks: [{ group: 'g', handler: 'h', reason: 'ask me', force: false }],
      reason: 'ask me',
      status: 'pending',
      created: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-01-01T01:00:00.000Z',
    };
    await state.approvals.put(approval);
    await state.approvals.put({ ...approval, status: 'approved' });
    state = await backend.open();
    expect(await state.approvals.get(approval.call_id)).toEqual({
      ...approval,
      status: 'approved',
    });
    expect(await state.approvals.get(id('call_none'))).toBeUndefined();
    await state.approvals.addGrant(approval.environment_id, 'key-1');
    await state.approvals.addGrant(approval.environment_id, 'key-1');
    expect(await state.approvals.hasGrant(approval.environment_id, 'key-1')).toBe(true);
    expect(await state.approvals.hasGrant(id('env_other'), 'key-1')).toBe(false);
  });

  it('credentials, snapshots and agents: saved, replaced, listed, deleted, each with its tenant', async () => {
    const credential = {
      id: id('cred'),
      tenant: 'alice',
      name: 'c',
      header_names: ['Authorization'],
      has_value: true,
      created: '2026-01-01T00:00:00.000Z',
      secret: 'sealed-text',
      config: { type: 'api_key', updated: '2026-01-01T00:00:00.000Z' },
    };
    await state.credentials.save(credential);
    await state.credentials.save({ ...credential, name: 'renamed', has_value: false });
    const snapshot = {
      id: id('snap'),
      environment_id: id('env_snap'),
      volume: 'hookbox-snap',
      created: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-01-02T00:00:00.000Z',
      tenant: null,
      recipe: { vocabulary: '2026-05', sandbox: { diskMb: 64 } },
      networked: true,
    };
    await state.snapshots.save(snapshot);
    const agent = {
      id: id('agent'),
      tenant: 'bob',
      created: '2026-01-01T00:00:00.000Z',
      body: { base_agent: 'scripted', system_instruction: 'hi' },
    };
    await state.agents.save(agent);
    await state.agents.save({ ...agent, body: { base_agent: 'scripted' } });
    state = await backend.open();
    expect(await state.credentials.get(credential.id)).toEqual({
      ...credential,
      name: 'renamed',
      has_value: false,
    });
    expect(await state.snapshots.get(snapshot.id)).toEqual(snapshot);
    expect(await state.agents.get(agent.id)).toEqual({
      ...agent,
      body: { base_agent: 'scripted' },
    });
    const mine = <Row extends { id: string }>(rows: Row[]) =>
      rows.filter((row) => row.id.endsWith(id(''))).map((row) => row.id);
    expect(mine(await state.credentials.list())).toEqual([credential.id]);
    expect(mine(await state.snapshots.list())).toEqual([snapshot.id]);
    expect(mine(await state.agents.list())).toEqual([agent.id]);
    expect(await state.credentials.delete(credential.id)).toBe(true);
    expect(await state.credentials.delete(credential.id)).toBe(false);
    expect(await state.snapshots.delete(snapshot.id)).toBe(true);
    expect(await state.agents.delete(agent.id)).toBe(true);
    expect(await state.agents.get(agent.id)).toBeUndefined();
  });

  it('a second opening applies no migration again', async () => {
    expect(await state.migrate()).toEqual([]);
    expect((await state.appliedMigrations()).length).toBeGreaterThanOrEqual(10);
  });
});
