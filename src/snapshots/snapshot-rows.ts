// Where snapshots' records are kept: memory (no state), the SQLite state file, or PostgreSQL.
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { MemoryRows } from '../state/memory-rows.js';
import { openStateFile } from '../state/sqlite-file.js';
import { recipeSchema, type EnvironmentRecipe } from './recipe.js';

/** One snapshot's record; its files are in its volume on the engine's host. */
export interface SnapshotRow {
  id: string;
  /** The environment it was taken of. */
  environment_id: string;
  /** The Docker volume holding its `workspace/` and `agents/` trees. */
  volume: string;
  created: string;
  expires_at: string;
  /** The tenant whose environment it came from (docs/tenants.md); null: none. */
  tenant: string | null;
  recipe: EnvironmentRecipe;
  /**
   * Its environment had a network: the allowlist (whose transforms may hold secrets) is kept in
   * this process's memory only, so after a restart the snapshot can no longer be restored.
   */
  networked: boolean;
}

/** The snapshots' records, whichever store holds them. */
export interface SnapshotRows {
  save(row: SnapshotRow): Promise<void>;
  get(id: string): Promise<SnapshotRow | undefined>;
  list(): Promise<SnapshotRow[]>;
  /** True when a row was removed. */
  delete(id: string): Promise<boolean>;
}

/** Without a state file: records last as long as the process. */
export class MemorySnapshotRows extends MemoryRows<SnapshotRow> implements SnapshotRows {}

/** A saved row read back (saved state is a trust boundary); `recipe` arrives as JSON text or as an object. */
export const savedSnapshotSchema = z.object({
  id: z.string(),
  environment_id: z.string(),
  volume: z.string(),
  created: z.union([z.date(), z.string()]).transform((value) => new Date(value).toISOString()),
  expires_at: z.union([z.date(), z.string()]).transform((value) => new Date(value).toISOString()),
  tenant: z.string().nullable(),
  recipe: z
    .union([
      z.string().transform((text) => JSON.parse(text) as unknown),
      z.record(z.string(), z.unknown()),
    ])
    .pipe(recipeSchema),
  networked: z.union([z.boolean(), z.number().transform((value) => value !== 0)]),
});

/** The snapshots table in the controller's SQLite state file (its own connection, as every store's). */
export class SqliteSnapshotRows implements SnapshotRows {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = openStateFile(
      path,
      `CREATE TABLE IF NOT EXISTS snapshots (
        id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, volume TEXT NOT NULL, created TEXT NOT NULL,
        expires_at TEXT NOT NULL, tenant TEXT, recipe TEXT NOT NULL, networked INTEGER NOT NULL);`,
    );
  }

  async save(row: SnapshotRow): Promise<void> {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO snapshots (id, environment_id, volume, created, expires_at, tenant, recipe, networked)
         VALUES (@id, @environment_id, @volume, @created, @expires_at, @tenant, @recipe, @networked)`,
      )
      .run({ ...row, recipe: JSON.stringify(row.recipe), networked: row.networked ? 1 : 0 });
  }

  async get(id: string): Promise<SnapshotRow | undefined> {
    const row = this.db.prepare('SELECT * FROM snapshots WHERE id = ?').get(id);
    return row === undefined ? undefined : savedSnapshotSchema.parse(row);
  }

  async list(): Promise<SnapshotRow[]> {
    return this.db
      .prepare('SELECT * FROM snapshots ORDER BY created')
      .all()
      .map((row) => savedSnapshotSchema.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM snapshots WHERE id = ?').run(id).changes > 0;
  }

  close(): void {
    this.db.close();
  }
}
