// Where agent definitions are kept: the controller's state (SQLite file or PostgreSQL), or memory.
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { z } from 'zod';
import { MemoryRows } from '../state/memory-rows.js';
import { openStateFile } from '../state/sqlite-file.js';

/** One stored agent (docs/agents.md): the definition as the SDKs send it, and who made it. */
export interface AgentRow {
  id: string;
  /** The tenant that made it (docs/tenants.md); null: a server with no keys. */
  tenant: string | null;
  created: string;
  /** The checked definition: `base_agent`, `base_environment`, `system_instruction`, … */
  body: Record<string, unknown>;
}

/** The rows behind {@link Agents}; each state store has its own, and closes it with itself. */
export interface AgentRows {
  save(row: AgentRow): Promise<void>;
  get(id: string): Promise<AgentRow | undefined>;
  /** Every row, oldest first. */
  list(): Promise<AgentRow[]>;
  /** True when a row was removed. */
  delete(id: string): Promise<boolean>;
}

/** Rows in this process only (a controller without a state file or URL). */
export class MemoryAgentRows extends MemoryRows<AgentRow> implements AgentRows {}

// Saved state is a trust boundary: rows are checked when read back.
const rowSchema = z.object({
  id: z.string(),
  tenant: z.string().nullable(),
  created: z.union([z.date(), z.string()]).transform((value) => new Date(value).toISOString()),
  body: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .transform((value) =>
      typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : value,
    ),
});

/** Agents in the controller's SQLite state file: their own connection and table, like credentials. */
export class SqliteAgentRows implements AgentRows {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = openStateFile(
      path,
      `CREATE TABLE IF NOT EXISTS agents (
        id TEXT PRIMARY KEY, tenant TEXT, created TEXT NOT NULL, body TEXT NOT NULL);`,
    );
  }

  async save(row: AgentRow): Promise<void> {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO agents (id, tenant, created, body) VALUES (@id, @tenant, @created, @body)',
      )
      .run({ ...row, body: JSON.stringify(row.body) });
  }

  async get(id: string): Promise<AgentRow | undefined> {
    const row = this.db.prepare('SELECT * FROM agents WHERE id = ?').get(id);
    return row === undefined ? undefined : rowSchema.parse(row);
  }

  async list(): Promise<AgentRow[]> {
    return this.db
      .prepare('SELECT * FROM agents ORDER BY created, id')
      .all()
      .map((row) => rowSchema.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM agents WHERE id = ?').run(id).changes > 0;
  }

  close(): void {
    this.db.close();
  }
}

/** Agents in PostgreSQL (the `agents` table of migration 8, src/state/postgres-migrations.ts). */
export class PostgresAgentRows implements AgentRows {
  constructor(private readonly pool: pg.Pool) {}

  async save(row: AgentRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO agents (id, tenant, created, body) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET body = $4`,
      [row.id, row.tenant, row.created, JSON.stringify(row.body)],
    );
  }

  async get(id: string): Promise<AgentRow | undefined> {
    const result = await this.pool.query('SELECT * FROM agents WHERE id = $1', [id]);
    return result.rows[0] === undefined ? undefined : rowSchema.parse(result.rows[0]);
  }

  async list(): Promise<AgentRow[]> {
    const result = await this.pool.query('SELECT * FROM agents ORDER BY created, id');
    return result.rows.map((row) => rowSchema.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM agents WHERE id = $1', [id]);
    return (result.rowCount ?? 0) > 0;
  }
}
