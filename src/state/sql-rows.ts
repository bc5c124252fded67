// The record tables of the controller's state (snapshots, credentials, agents, approvals), one
// class each for both databases, on the store's one Kysely instance (src/state/sql-state-store.ts).
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

/** The snapshots' records (docs/environments.md, "Snapshots and forks"). */
export class SnapshotTable implements Rows<SnapshotRecord> {
  private readonly flag: (value: boolean) => boolean | number;

  constructor(
    private readonly db: Kysely<Tables>,
    dialect: Dialect,
  ) {
    this.flag = flagFor(dialect);
  }

  async save(row: SnapshotRecord): Promise<void> {
    const values = {
      ...row,
      recipe: JSON.stringify(row.recipe),
      networked: this.flag(row.networked),
    };
    await this.db
      .insertInto('snapshots')
      .values(values)
      .onConflict((c) => c.column('id').doUpdateSet(values))
      .execute();
  }

  async get(id: string): Promise<SnapshotRecord | undefined> {
    const row = await this.db
      .selectFrom('snapshots')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : snapshotRecord.parse(row);
  }

  async list(): Promise<SnapshotRecord[]> {
    const rows = await this.db
      .selectFrom('snapshots')
      .selectAll()
      .orderBy('created')
      .orderBy('id')
      .execute();
    return rows.map((row) => snapshotRecord.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('snapshots').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** The credentials' rows (docs/credentials.md): the `secret` column holds only sealed text. */
export class CredentialTable implements Rows<CredentialRecord> {
  private readonly flag: (value: boolean) => boolean | number;

  constructor(
    private readonly db: Kysely<Tables>,
    dialect: Dialect,
  ) {
    this.flag = flagFor(dialect);
  }

  async save(row: CredentialRecord): Promise<void> {
    const values = {
      ...row,
      header_names: JSON.stringify(row.header_names),
      has_value: this.flag(row.has_value),
      config: row.config ? JSON.stringify(row.config) : null,
    };
    await this.db
      .insertInto('credentials')
      .values(values)
      .onConflict((c) => c.column('id').doUpdateSet(values))
      .execute();
  }

  async get(id: string): Promise<CredentialRecord | undefined> {
    const row = await this.db
      .selectFrom('credentials')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : credentialRecord.parse(row);
  }

  async list(): Promise<CredentialRecord[]> {
    const rows = await this.db
      .selectFrom('credentials')
      .selectAll()
      .orderBy('created')
      .orderBy('id')
      .execute();
    return rows.map((row) => credentialRecord.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('credentials').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** The stored agents' definitions (docs/agents.md). */
export class AgentTable implements Rows<AgentRow> {
  constructor(private readonly db: Kysely<Tables>) {}

  async save(row: AgentRow): Promise<void> {
    const values = { ...row, body: JSON.stringify(row.body) };
    await this.db
      .insertInto('agents')
      .values(values)
      .onConflict((c) => c.column('id').doUpdateSet({ body: values.body }))
      .execute();
  }

  async get(id: string): Promise<AgentRow | undefined> {
    const row = await this.db
      .selectFrom('agents')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : agentRow.parse(row);
  }

  async list(): Promise<AgentRow[]> {
    const rows = await this.db
      .selectFrom('agents')
      .selectAll()
      .orderBy('created')
      .orderBy('id')
      .execute();
    return rows.map((row) => agentRow.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('agents').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
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
