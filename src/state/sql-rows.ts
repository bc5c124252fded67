// The record tables of the controller's state (snapshots, credentials, agents: one generic table;
// approvals), for both databases, on the store's one Kysely instance (src/state/sql-state-store.ts).
import type { Kysely } from 'kysely';
import type { ApprovalStore, PendingApproval } from './approvals.js';
import type { Dialect } from './migrations.js';
import type { AgentRow, CredentialRecord, Rows, SnapshotRecord } from './rows.js';
import { agentRow, approvalBody, credentialRecord, snapshotRecord, type Tables } from './tables.js';

/** A flag as the dialect stores it: SQLite binds no booleans. */
export const flagFor =
  (dialect: Dialect) =>
  (value: boolean): boolean | number =>
    dialect === 'sqlite' ? (value ? 1 : 0) : value;

/** The columns every record table has: its id, and when it was made (the order of its listing). */
interface RecordColumns {
  id: string;
  created: string;
}

/** How one kind of record is kept in its table. */
interface RecordTableSpec<R extends { id: string }> {
  table: 'snapshots' | 'credentials' | 'agents';
  /** The record as columns (JSON fields as text, flags as the dialect binds them). */
  columns(row: R): RecordColumns & Record<string, unknown>;
  /** A stored row read back, checked (tables.ts). */
  parse(row: unknown): R;
  /** The columns a second save of the same id rewrites. @default every column */
  updated?(columns: Record<string, unknown>): Record<string, unknown>;
}

/**
 * One table of records keyed by `id` and listed by `created` (snapshots, credentials, agents): the
 * same four statements for each, with the record's columns and check from its spec.
 */
class RecordTable<R extends { id: string }> implements Rows<R> {
  /** The table, seen only through the columns every record table has (RecordColumns). */
  private readonly db: Kysely<Record<string, RecordColumns>>;

  constructor(
    db: Kysely<Tables>,
    private readonly spec: RecordTableSpec<R>,
  ) {
    this.db = db as unknown as Kysely<Record<string, RecordColumns>>;
  }

  async save(row: R): Promise<void> {
    const values = this.spec.columns(row);
    const updated = this.spec.updated?.(values) ?? values;
    await this.db
      .insertInto(this.spec.table)
      .values(values)
      .onConflict((c) => c.column('id').doUpdateSet(updated))
      .execute();
  }

  async get(id: string): Promise<R | undefined> {
    const row = await this.db
      .selectFrom(this.spec.table)
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : this.spec.parse(row);
  }

  async list(): Promise<R[]> {
    const rows = await this.db
      .selectFrom(this.spec.table)
      .selectAll()
      .orderBy('created')
      .orderBy('id')
      .execute();
    return rows.map((row) => this.spec.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom(this.spec.table)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** The snapshots' records (docs/environments.md, "Snapshots and forks"). */
export function snapshotTable(db: Kysely<Tables>, dialect: Dialect): Rows<SnapshotRecord> {
  const flag = flagFor(dialect);
  return new RecordTable<SnapshotRecord>(db, {
    table: 'snapshots',
    columns: (row) => ({
      ...row,
      recipe: JSON.stringify(row.recipe),
      networked: flag(row.networked),
    }),
    parse: (row) => snapshotRecord.parse(row),
  });
}

/** The credentials' rows (docs/credentials.md): the `secret` column holds only sealed text. */
export function credentialTable(db: Kysely<Tables>, dialect: Dialect): Rows<CredentialRecord> {
  const flag = flagFor(dialect);
  return new RecordTable<CredentialRecord>(db, {
    table: 'credentials',
    columns: (row) => ({
      ...row,
      header_names: JSON.stringify(row.header_names),
      has_value: flag(row.has_value),
      config: row.config ? JSON.stringify(row.config) : null,
    }),
    parse: (row) => credentialRecord.parse(row),
  });
}

/** The stored agents' definitions (docs/agents.md); saving one again rewrites its body only. */
export function agentTable(db: Kysely<Tables>): Rows<AgentRow> {
  return new RecordTable<AgentRow>(db, {
    table: 'agents',
    columns: (row) => ({ ...row, body: JSON.stringify(row.body) }),
    parse: (row) => agentRow.parse(row),
    updated: (columns) => ({ body: columns.body }),
  });
}

/**
 * Pending and cached approvals (docs/dialects.md, "ask"): a call waiting for its approver survives
 * a restart, and any replica sharing the database can take the answer.
 */
export class ApprovalTable implements ApprovalStore {
  constructor(private readonly db: Kysely<Tables>) {}

  async put(approval: PendingApproval): Promise<void> {
    const { call_id, interaction_id, environment_id, status, expires_at } = approval;
    const body = JSON.stringify(approval);
    await this.db
      .insertInto('approvals')
      .values({ call_id, interaction_id, environment_id, status, body, expires_at })
      .onConflict((c) => c.column('call_id').doUpdateSet({ status, body, expires_at }))
      .execute();
  }

  async get(callId: string): Promise<PendingApproval | undefined> {
    const row = await this.db
      .selectFrom('approvals')
      .select('body')
      .where('call_id', '=', callId)
      .executeTakeFirst();
    return row === undefined ? undefined : approvalBody.parse(row.body);
  }

  async addGrant(environmentId: string, key: string): Promise<void> {
    await this.db
      .insertInto('approval_grants')
      .values({ environment_id: environmentId, key, created: new Date().toISOString() })
      .onConflict((c) => c.doNothing())
      .execute();
  }

  async hasGrant(environmentId: string, key: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('approval_grants')
      .select('key')
      .where('environment_id', '=', environmentId)
      .where('key', '=', key)
      .executeTakeFirst();
    return row !== undefined;
  }
}
