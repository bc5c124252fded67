import type Database from 'better-sqlite3';
import { openStateFile } from './sqlite-file.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { StateLock } from './state-lock.js';

/** What the controller needs to bring an environment back after a restart. */
export interface EnvironmentRow {
  id: string;
  container_id: string;
  created: string;
  /** The settings it was made with (vocabulary, timeouts, caps, background processes, limits). */
  settings: Record<string, unknown>;
  /** The hooks.json in force (null: no hooks). */
  hooks_json: string | null;
  last_used: string;
  /** The tenant that made it (docs/tenants.md); null: none (the library, or an older state file). */
  tenant?: string | null;
}

/** A stored interaction: its JSON as the API returns it, plus what queries need. */
export interface InteractionRow {
  id: string;
  environment_id: string | null;
  status: string;
  body: Record<string, unknown>;
  updated: string;
  /** The tenant that made it; null: none. */
  tenant?: string | null;
}

const environmentRowSchema = z.object({
  id: z.string(),
  container_id: z.string(),
  created: z.string(),
  settings: z.string().transform((text) => JSON.parse(text) as Record<string, unknown>),
  hooks_json: z.string().nullable(),
  last_used: z.string(),
  tenant: z.string().nullable(),
});

const interactionRowSchema = z.object({
  id: z.string(),
  environment_id: z.string().nullable(),
  status: z.string(),
  body: z.string().transform((text) => JSON.parse(text) as Record<string, unknown>),
  updated: z.string(),
  tenant: z.string().nullable(),
});

/**
 * The controller's durable state in SQLite (better-sqlite3; no server): environments and
 * interactions. WAL with synchronous=FULL, so a committed write survives a `kill -9` of the
 * controller. Rows are validated when read back (saved state is a trust boundary).
 */
export class StateStore {
  private readonly db: Database.Database;
  private readonly lock: StateLock;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.lock = new StateLock(path);
    this.db = openStateFile(
      path,
      `
      CREATE TABLE IF NOT EXISTS environments (
        id TEXT PRIMARY KEY, container_id TEXT NOT NULL, created TEXT NOT NULL,
        settings TEXT NOT NULL, hooks_json TEXT, last_used TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS interactions (
        id TEXT PRIMARY KEY, environment_id TEXT, status TEXT NOT NULL, body TEXT NOT NULL, updated TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS interactions_status ON interactions(status);
      CREATE INDEX IF NOT EXISTS interactions_updated ON interactions(updated);
      CREATE TABLE IF NOT EXISTS interaction_steps (
        interaction_id TEXT NOT NULL, idx INTEGER NOT NULL, step TEXT NOT NULL,
        PRIMARY KEY (interaction_id, idx));
    `,
    );
    // Columns are only ever added (docs/operations.md, "Upgrades"): the owner of each resource.
    for (const table of ['environments', 'interactions']) {
      const columns = this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      if (!columns.some((column) => column.name === 'tenant'))
        this.db.exec(`ALTER TABLE ${table} ADD COLUMN tenant TEXT`);
    }
  }

  saveEnvironment(row: EnvironmentRow): void {
    this.db
      .prepare(
        `INSERT INTO environments (id, container_id, created, settings, hooks_json, last_used, tenant)
         VALUES (@id, @container_id, @created, @settings, @hooks_json, @last_used, @tenant)
         ON CONFLICT(id) DO UPDATE SET container_id = excluded.container_id, settings = excluded.settings,
           hooks_json = excluded.hooks_json, last_used = excluded.last_used`,
      )
      .run({ ...row, settings: JSON.stringify(row.settings), tenant: row.tenant ?? null });
  }

  touchEnvironment(id: string, at = new Date().toISOString()): void {
    this.db.prepare('UPDATE environments SET last_used = ? WHERE id = ?').run(at, id);
  }

  setHooksJson(id: string, hooksJson: string | null): void {
    this.db.prepare('UPDATE environments SET hooks_json = ? WHERE id = ?').run(hooksJson, id);
  }

  deleteEnvironment(id: string): void {
    this.db.prepare('DELETE FROM environments WHERE id = ?').run(id);
  }

  environments(): EnvironmentRow[] {
    return this.db
      .prepare('SELECT * FROM environments ORDER BY created')
      .all()
      .map((row) => environmentRowSchema.parse(row));
  }

  hasEnvironment(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM environments WHERE id = ?').get(id) !== undefined;
  }

  saveInteraction(row: InteractionRow): void {
    this.db
      .prepare(
        `INSERT INTO interactions (id, environment_id, status, body, updated, tenant)
         VALUES (@id, @environment_id, @status, @body, @updated, @tenant)
         ON CONFLICT(id) DO UPDATE SET environment_id = excluded.environment_id, status = excluded.status,
           body = excluded.body, updated = excluded.updated`,
      )
      .run({ ...row, body: JSON.stringify(row.body), tenant: row.tenant ?? null });
  }

  /** Replaces an interaction's saved steps (with `saveInteraction`, a save of the whole). */
  replaceInteractionSteps(id: string, steps: readonly unknown[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM interaction_steps WHERE interaction_id = ?').run(id);
      const insert = this.db.prepare(
        'INSERT INTO interaction_steps (interaction_id, idx, step) VALUES (?, ?, ?)',
      );
      steps.forEach((step, index) => insert.run(id, index, JSON.stringify(step)));
    })();
  }

  /** Saves one more step: a row of its own, so saving never rewrites the steps before it. */
  appendInteractionStep(id: string, index: number, step: unknown): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO interaction_steps (interaction_id, idx, step) VALUES (?, ?, ?)',
      )
      .run(id, index, JSON.stringify(step));
  }

  /** The steps saved as rows, in order (an older state file kept them in the body instead). */
  interactionSteps(id: string): unknown[] {
    return (
      this.db
        .prepare('SELECT step FROM interaction_steps WHERE interaction_id = ? ORDER BY idx')
        .all(id) as { step: string }[]
    ).map((row) => JSON.parse(row.step) as unknown);
  }

  interaction(id: string): InteractionRow | undefined {
    const row = this.db.prepare('SELECT * FROM interactions WHERE id = ?').get(id);
    return row === undefined ? undefined : interactionRowSchema.parse(row);
  }

  /** Removes an interaction and its steps. */
  deleteInteraction(id: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM interaction_steps WHERE interaction_id = ?').run(id);
      this.db.prepare('DELETE FROM interactions WHERE id = ?').run(id);
    })();
  }

  /** The ids (and tenants) of the most recently updated interactions, newest first. */
  recentInteractions(limit: number): { id: string; tenant: string | null }[] {
    return this.db
      .prepare('SELECT id, tenant FROM interactions ORDER BY updated DESC LIMIT ?')
      .all(limit) as { id: string; tenant: string | null }[];
  }

  interactionsWithStatus(status: string): InteractionRow[] {
    return this.db
      .prepare('SELECT * FROM interactions WHERE status = ?')
      .all(status)
      .map((row) => interactionRowSchema.parse(row));
  }

  close(): void {
    this.db.close();
    this.lock.release();
  }
}
