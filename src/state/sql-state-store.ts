import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { migrationsFor, type Dialect } from './migrations.js';
import { agentTable, ApprovalTable, credentialTable, snapshotTable } from './sql-rows.js';
import { StateLock } from './state-lock.js';
import { checkStateUrl, redactUrl } from './state-url.js';
import type { ControllerStateStore, EnvironmentRow, InteractionRow } from './store.js';
import type { AgentRow, CredentialRecord, Rows, SnapshotRecord } from './rows.js';
import { environmentRow, interactionRow, stepRow, type Tables } from './tables.js';
import { valueText } from '../tools/value-text.js';

/** Where the applied steps of src/state/migrations.ts are recorded (Kysely's Migrator). */
export const MIGRATION_TABLE = 'hookbox_schema';

/**
 * The controller's durable state in either database, through one Kysely instance: a SQLite file
 * on one host (one better-sqlite3 connection, WAL with every commit synced, so a committed write
 * survives a `kill -9`), or PostgreSQL shared by replicas (pg's pool). One list of migrations
 * (src/state/migrations.ts) makes both schemas; rows are validated when read back (saved state is
 * a trust boundary). Open with {@link SqlStateStore.openFile} or {@link SqlStateStore.openUrl}.
 */
export class SqlStateStore implements ControllerStateStore {
  readonly snapshots: Rows<SnapshotRecord>;
  readonly credentials: Rows<CredentialRecord>;
  readonly agents: Rows<AgentRow>;
  readonly approvals: ApprovalTable;
  readonly shared: boolean;

  private constructor(
    private readonly db: Kysely<Tables>,
    readonly dialect: Dialect,
    readonly location: string,
    private readonly lock?: StateLock,
    /** This replica, recorded with the environments it makes (shared state). */
    public controllerId?: string,
  ) {
    this.shared = dialect === 'postgres';
    this.snapshots = snapshotTable(db, dialect);
    this.credentials = credentialTable(db, dialect);
    this.agents = agentTable(db);
    this.approvals = new ApprovalTable(db);
  }

  /**
   * The SQLite state file at `path` (made if missing), held by this controller alone
   * (`PATH.lock`, docs/operations.md "The state file"): one connection that every table shares.
   */
  static async openFile(path: string): Promise<SqlStateStore> {
    mkdirSync(dirname(path), { recursive: true });
    const lock = new StateLock(path);
    let connection: Database.Database | undefined;
    try {
      connection = new Database(path);
      // WAL: readers never wait for the writer; FULL: every commit synced before it is answered.
      connection.pragma('journal_mode = WAL');
      connection.pragma('synchronous = FULL');
      connection.pragma('busy_timeout = 5000');
      const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: connection }) });
      return await new SqlStateStore(db, 'sqlite', path, lock).opened();
    } catch (error) {
      connection?.close();
      lock.release();
      throw error;
    }
  }

  /** PostgreSQL at `url` (`--state-url`), shared by every replica that serves one API. */
  static async openUrl(
    url: string,
    options: { controllerId?: string } = {},
  ): Promise<SqlStateStore> {
    const pool = new pg.Pool({ connectionString: checkStateUrl(url), max: 4 });
    // An idle connection that dies (server restart) must not crash the controller.
    pool.on('error', () => {});
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    const store = new SqlStateStore(
      db,
      'postgres',
      redactUrl(url),
      undefined,
      options.controllerId,
    );
    return store.opened();
  }

  private async opened(): Promise<this> {
    try {
      await this.migrate();
      return this;
    } catch (error) {
      await this.db.destroy().catch(() => {});
      throw error;
    }
  }

  /**
   * Applies the migrations not yet applied, in order; returns their names. On PostgreSQL the
   * Migrator holds an advisory lock, so replicas starting together apply each step once.
   */
  async migrate(): Promise<string[]> {
    const { error, results } = await this.migrator().migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(valueText(error));
    return (results ?? []).map((result) => result.migrationName);
  }

  /** The names of the migrations applied to this database, in order. */
  async appliedMigrations(): Promise<string[]> {
    const all = await this.migrator().getMigrations();
    return all.filter((each) => each.executedAt !== undefined).map((each) => each.name);
  }

  private migrator(): Migrator {
    return new Migrator({
      db: this.db,
      provider: { getMigrations: async () => migrationsFor(this.dialect) },
      migrationTableName: MIGRATION_TABLE,
      migrationLockTableName: `${MIGRATION_TABLE}_lock`,
    });
  }

  async saveEnvironment(row: EnvironmentRow): Promise<void> {
    const values = {
      ...row,
      settings: JSON.stringify(row.settings),
      tenant: row.tenant ?? null,
      controller_id: this.controllerId ?? null,
    };
    const { container_id, settings, hooks_json, last_used } = values;
    await this.db
      .insertInto('environments')
      .values(values)
      .onConflict((c) =>
        c.column('id').doUpdateSet({ container_id, settings, hooks_json, last_used }),
      )
      .execute();
  }

  async touchEnvironment(id: string, at = new Date().toISOString()): Promise<void> {
    await this.db.updateTable('environments').set({ last_used: at }).where('id', '=', id).execute();
  }

  async setHooksJson(id: string, hooksJson: string | null): Promise<void> {
    await this.db
      .updateTable('environments')
      .set({ hooks_json: hooksJson })
      .where('id', '=', id)
      .execute();
  }

  async deleteEnvironment(id: string): Promise<void> {
    await this.db.deleteFrom('environments').where('id', '=', id).execute();
  }

  async environments(): Promise<EnvironmentRow[]> {
    const rows = await this.db.selectFrom('environments').selectAll().orderBy('created').execute();
    return rows.map((row) => environmentRow.parse(row));
  }

  async environment(id: string): Promise<EnvironmentRow | undefined> {
    const row = await this.db
      .selectFrom('environments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : environmentRow.parse(row);
  }

  async saveInteraction(row: InteractionRow): Promise<void> {
    const values = { ...row, body: JSON.stringify(row.body), tenant: row.tenant ?? null };
    const { environment_id, status, body, updated } = values;
    await this.db
      .insertInto('interactions')
      .values(values)
      .onConflict((c) => c.column('id').doUpdateSet({ environment_id, status, body, updated }))
      .execute();
  }

  async replaceInteractionSteps(id: string, steps: readonly unknown[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('interaction_steps').where('interaction_id', '=', id).execute();
      if (steps.length > 0)
        await trx
          .insertInto('interaction_steps')
          .values(
            steps.map((step, idx) => ({ interaction_id: id, idx, step: JSON.stringify(step) })),
          )
          .execute();
    });
  }

  async appendInteractionStep(id: string, index: number, step: unknown): Promise<void> {
    const text = JSON.stringify(step);
    await this.db
      .insertInto('interaction_steps')
      .values({ interaction_id: id, idx: index, step: text })
      .onConflict((c) => c.columns(['interaction_id', 'idx']).doUpdateSet({ step: text }))
      .execute();
  }

  async interactionSteps(id: string): Promise<unknown[]> {
    const rows = await this.db
      .selectFrom('interaction_steps')
      .select('step')
      .where('interaction_id', '=', id)
      .orderBy('idx')
      .execute();
    return rows.map((row) => stepRow.parse(row).step);
  }

  async interaction(id: string): Promise<InteractionRow | undefined> {
    const row = await this.db
      .selectFrom('interactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : interactionRow.parse(row);
  }

  async deleteInteraction(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('interaction_steps').where('interaction_id', '=', id).execute();
      await trx.deleteFrom('interactions').where('id', '=', id).execute();
    });
  }

  async recentInteractions(limit: number): Promise<InteractionRow[]> {
    const rows = await this.db
      .selectFrom('interactions')
      .selectAll()
      .orderBy('updated', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => interactionRow.parse(row));
  }

  async interactionsWithStatus(status: string): Promise<InteractionRow[]> {
    const rows = await this.db
      .selectFrom('interactions')
      .selectAll()
      .where('status', '=', status)
      .execute();
    return rows.map((row) => interactionRow.parse(row));
  }

  async close(): Promise<void> {
    await this.db.destroy();
    this.lock?.release();
  }
}
