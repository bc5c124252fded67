import Database from 'better-sqlite3';
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
}

/** A stored interaction: its JSON as the API returns it, plus what queries need. */
export interface InteractionRow {
  id: string;
  environment_id: string | null;
  status: string;
  body: Record<string, unknown>;
  updated: string;
}

const environmentRowSchema = z.object({
  id: z.string(),
  container_id: z.string(),
  created: z.string(),
  settings: z.string().transform((text) => JSON.parse(text) as Record<string, unknown>),
  hooks_json: z.string().nullable(),
  last_used: z.string(),
});

const interactionRowSchema = z.object({
  id: z.string(),
  environment_id: z.string().nullable(),
  status: z.string(),
  body: z.string().transform((text) => JSON.parse(text) as Record<string, unknown>),
  updated: z.string(),
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
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS environments (
        id TEXT PRIMARY KEY, container_id TEXT NOT NULL, created TEXT NOT NULL,
        settings TEXT NOT NULL, hooks_json TEXT, last_used TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS interactions (
        id TEXT PRIMARY KEY, environment_id TEXT, status TEXT NOT NULL, body TEXT NOT NULL, updated TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS interactions_status ON interactions(status);
    `);
  }

  saveEnvironment(row: EnvironmentRow): void {
    this.db
      .prepare(
        `INSERT INTO environments (id, container_id, created, settings, hooks_json, last_used)
         VALUES (@id, @container_id, @created, @settings, @hooks_json, @last_used)
         ON CONFLICT(id) DO UPDATE SET container_id = excluded.container_id, settings = excluded.settings,
           hooks_json = excluded.hooks_json, last_used = excluded.last_used`,
      )
      .run({ ...row, settings: JSON.stringify(row.settings) });
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
        `INSERT INTO interactions (id, environment_id, status, body, updated) VALUES (@id, @environment_id, @status, @body, @updated)
         ON CONFLICT(id) DO UPDATE SET environment_id = excluded.environment_id, status = excluded.status,
           body = excluded.body, updated = excluded.updated`,
      )
      .run({ ...row, body: JSON.stringify(row.body) });
  }

  interaction(id: string): InteractionRow | undefined {
    const row = this.db.prepare('SELECT * FROM interactions WHERE id = ?').get(id);
    return row === undefined ? undefined : interactionRowSchema.parse(row);
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
