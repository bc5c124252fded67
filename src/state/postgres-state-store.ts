import pg from 'pg';
import { z } from 'zod';
import { PostgresCredentialRows } from '../credentials/postgres-rows.js';
import { PostgresAgentRows } from '../agents/agent-rows.js';
import { UserError } from '../errors/index.js';
import { MIGRATION_LOCK_KEY, MIGRATIONS } from './postgres-migrations.js';
import { PostgresSnapshotRows } from '../snapshots/postgres-snapshot-rows.js';
import { PostgresApprovalStore } from './postgres-approval-store.js';
import type { ControllerStateStore, EnvironmentRow, InteractionRow } from './store.js';

const iso = z.union([z.date(), z.string()]).transform((value) => new Date(value).toISOString());

const environmentRowSchema = z.object({
  id: z.string(),
  container_id: z.string(),
  created: iso,
  settings: z.record(z.string(), z.unknown()),
  hooks_json: z.string().nullable(),
  last_used: iso,
  tenant: z.string().nullable().default(null),
});

const interactionRowSchema = z.object({
  id: z.string(),
  environment_id: z.string().nullable(),
  status: z.string(),
  body: z.record(z.string(), z.unknown()),
  updated: iso,
  tenant: z.string().nullable().default(null),
});

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable)';
  }
}

/** Checks `--state-url`: a postgres:// or postgresql:// URL. */
export function checkStateUrl(url: string, field = '--state-url'): string {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    throw new UserError(
      'invalid_argument',
      `${field}: must be a postgres://user:password@host:port/database URL (got ${JSON.stringify(redactUrl(url))})`,
      { details: { field } },
    );
  return url;
}

/**
 * The controller's state in PostgreSQL, shared by every replica that serves one API (pg's pool;
 * rows validated when read back, saved state being a trust boundary). Open with
 * {@link PostgresStateStore.open}, which applies the migrations.
 */
export class PostgresStateStore implements ControllerStateStore {
  readonly shared = true;
  readonly location: string;

  private constructor(
    private readonly pool: pg.Pool,
    url: string,
    /** This replica, recorded with the environments it makes. */
    public controllerId: string | undefined,
  ) {
    this.location = redactUrl(url);
    this.snapshots = new PostgresSnapshotRows(pool);
    this.credentials = new PostgresCredentialRows(pool);
    this.agents = new PostgresAgentRows(pool);
    this.approvals = new PostgresApprovalStore(pool);
  }

  /** Pending and cached approvals (docs/dialects.md, "ask"), shared by every replica. */
  readonly approvals: PostgresApprovalStore;

  /** The snapshots' records (docs/environments.md, "Snapshots and forks"). */
  readonly snapshots: PostgresSnapshotRows;
  /** The credentials table, on this store's pool (docs/credentials.md). */
  readonly credentials: PostgresCredentialRows;
  /** The agents table (docs/agents.md). */
  readonly agents: PostgresAgentRows;

  static async open(
    url: string,
    options: { controllerId?: string } = {},
  ): Promise<PostgresStateStore> {
    const pool = new pg.Pool({ connectionString: checkStateUrl(url), max: 4 });
    // An idle connection that dies (server restart) must not crash the controller.
    pool.on('error', () => {});
    const store = new PostgresStateStore(pool, url, options.controllerId);
    try {
      await store.migrate();
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return store;
  }

  /** Applies the migrations not yet applied; returns their versions. */
  async migrate(): Promise<number[]> {
    const client = await this.pool.connect();
    const applied: number[] = [];
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(`CREATE TABLE IF NOT EXISTS hookbox_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const done = new Set(
        (
          await client.query<{ version: number }>('SELECT version FROM hookbox_migrations')
        ).rows.map((row) => row.version),
      );
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await client.query(migration.sql);
        await client.query('INSERT INTO hookbox_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        applied.push(migration.version);
      }
      await client.query('COMMIT');
      return applied;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** The schema version in force (the highest migration applied). */
  async schemaVersion(): Promise<number> {
    const result = await this.pool.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM hookbox_migrations',
    );
    return result.rows[0]?.version ?? 0;
  }

  async saveEnvironment(row: EnvironmentRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO environments (id, container_id, created, settings, hooks_json, last_used, controller_id, tenant)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET container_id = excluded.container_id, settings = excluded.settings,
         hooks_json = excluded.hooks_json, last_used = excluded.last_used`,
      [
        row.id,
        row.container_id,
        row.created,
        JSON.stringify(row.settings),
        row.hooks_json,
        row.last_used,
        this.controllerId ?? null,
        row.tenant ?? null,
      ],
    );
  }

  async touchEnvironment(id: string, at = new Date().toISOString()): Promise<void> {
    await this.pool.query('UPDATE environments SET last_used = $1 WHERE id = $2', [at, id]);
  }

  async setHooksJson(id: string, hooksJson: string | null): Promise<void> {
    await this.pool.query('UPDATE environments SET hooks_json = $1 WHERE id = $2', [hooksJson, id]);
  }

  async deleteEnvironment(id: string): Promise<void> {
    await this.pool.query('DELETE FROM environments WHERE id = $1', [id]);
  }

  async environments(): Promise<EnvironmentRow[]> {
    const result = await this.pool.query('SELECT * FROM environments ORDER BY created');
    return result.rows.map((row) => environmentRowSchema.parse(row));
  }

  async environment(id: string): Promise<EnvironmentRow | undefined> {
    const result = await this.pool.query('SELECT * FROM environments WHERE id = $1', [id]);
    return result.rows[0] === undefined ? undefined : environmentRowSchema.parse(result.rows[0]);
  }

  async saveInteraction(row: InteractionRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO interactions (id, environment_id, status, body, updated, tenant) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET environment_id = excluded.environment_id, status = excluded.status,
         body = excluded.body, updated = excluded.updated`,
      [
        row.id,
        row.environment_id,
        row.status,
        JSON.stringify(row.body),
        row.updated,
        row.tenant ?? null,
      ],
    );
  }

  async interaction(id: string): Promise<InteractionRow | undefined> {
    const result = await this.pool.query('SELECT * FROM interactions WHERE id = $1', [id]);
    return result.rows[0] === undefined ? undefined : interactionRowSchema.parse(result.rows[0]);
  }

  async deleteInteraction(id: string): Promise<void> {
    await this.pool.query('DELETE FROM interactions WHERE id = $1', [id]);
  }

  async recentInteractions(limit: number): Promise<InteractionRow[]> {
    const result = await this.pool.query(
      'SELECT * FROM interactions ORDER BY updated DESC LIMIT $1',
      [limit],
    );
    return result.rows.map((row) => interactionRowSchema.parse(row));
  }

  async interactionsWithStatus(status: string): Promise<InteractionRow[]> {
    const result = await this.pool.query('SELECT * FROM interactions WHERE status = $1', [status]);
    return result.rows.map((row) => interactionRowSchema.parse(row));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
