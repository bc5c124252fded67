// A state file from before tenants gains the tenant columns and the steps table when opened; its
// rows read back with tenant null (the admin's) and its interactions keep their steps.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqlStateStore } from '../../src/state/sql-state-store.js';
import { StateInteractionStore } from '../../src/interactions/state-interaction-store.js';

describe('state file migration', () => {
  it('adds tenant columns to an older file, keeps its rows, and saves steps one row each', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hookbox-state-')), 'state.sqlite');
    const old = new Database(path);
    old.exec(`
      CREATE TABLE environments (id TEXT PRIMARY KEY, container_id TEXT NOT NULL, created TEXT NOT NULL,
        settings TEXT NOT NULL, hooks_json TEXT, last_used TEXT NOT NULL);
      CREATE TABLE interactions (id TEXT PRIMARY KEY, environment_id TEXT, status TEXT NOT NULL,
        body TEXT NOT NULL, updated TEXT NOT NULL);
    `);
    const step = { type: 'user_input', content: [{ type: 'text', text: 'hi' }] };
    const body = {
      id: 'int_old',
      object: 'interaction' as const,
      status: 'completed' as const,
      agent: 'scripted',
      environment_id: 'env_old',
      steps: [step],
      output_text: '',
      created: 't',
      updated: 't',
    };
    old
      .prepare('INSERT INTO environments VALUES (?, ?, ?, ?, ?, ?)')
      .run('env_old', 'c1', 't', '{}', null, 't');
    old
      .prepare('INSERT INTO interactions VALUES (?, ?, ?, ?, ?)')
      .run('int_old', 'env_old', 'completed', JSON.stringify(body), 't');
    old.close();

    const state = await SqlStateStore.openFile(path);
    expect((await state.environments())[0]).toMatchObject({ id: 'env_old', tenant: null });
    const store = new StateInteractionStore(state);
    expect(await store.tenantOf('int_old')).toBeNull();
    expect((await store.get('int_old'))?.steps).toEqual([step]);

    // A new interaction: saved with its tenant, then a step at a time, then its head.
    await store.put({ ...body, id: 'int_new', status: 'in_progress', steps: [] }, 'alice');
    await store.appendStep('int_new', 0, step as never);
    await store.appendStep('int_new', 1, {
      ...step,
      content: [{ type: 'text', text: 'two' }],
    } as never);
    await store.update('int_new', { status: 'completed', output_text: 'done', updated: 'u' });
    expect(await store.tenantOf('int_new')).toBe('alice');
    expect(await store.get('int_new')).toMatchObject({
      status: 'completed',
      output_text: 'done',
      steps: [step, { content: [{ text: 'two' }] }],
    });
    expect(await state.interactionSteps('int_new')).toHaveLength(2);
    await state.close();
  });
});
