import type Database from 'better-sqlite3';
import { openStateFile } from './sqlite-file.js';
import { approvalRowSchema } from './approval-row-schema.js';
import type { ApprovalStore, PendingApproval } from '../interactions/approval-store.js';

/**
 * Pending and cached approvals in the controller's state file, so that a call waiting for its
 * approver survives a restart (docs/dialects.md, "ask"). Its own connection to the same SQLite
 * file (WAL), with its own tables; rows are validated when read back.
 */
export class SqliteApprovalStore implements ApprovalStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = openStateFile(
      path,
      `
      CREATE TABLE IF NOT EXISTS approvals (
        call_id TEXT PRIMARY KEY, interaction_id TEXT NOT NULL, environment_id TEXT NOT NULL,
        status TEXT NOT NULL, body TEXT NOT NULL, expires_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS approval_grants (
        environment_id TEXT NOT NULL, key TEXT NOT NULL, created TEXT NOT NULL,
        PRIMARY KEY (environment_id, key));
    `,
    );
  }

  async put(approval: PendingApproval): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO approvals (call_id, interaction_id, environment_id, status, body, expires_at)
         VALUES (@call_id, @interaction_id, @environment_id, @status, @body, @expires_at)
         ON CONFLICT(call_id) DO UPDATE SET status = excluded.status, body = excluded.body,
           expires_at = excluded.expires_at`,
      )
      .run({ ...approval, body: JSON.stringify(approval) });
  }

  async get(callId: string): Promise<PendingApproval | undefined> {
    const row = this.db.prepare('SELECT body FROM approvals WHERE call_id = ?').get(callId) as
      { body: string } | undefined;
    return row === undefined ? undefined : approvalRowSchema.parse(JSON.parse(row.body));
  }

  async addGrant(environmentId: string, key: string): Promise<void> {
    this.db
      .prepare(
        'INSERT OR IGNORE INTO approval_grants (environment_id, key, created) VALUES (?, ?, ?)',
      )
      .run(environmentId, key, new Date().toISOString());
  }

  async hasGrant(environmentId: string, key: string): Promise<boolean> {
    return (
      this.db
        .prepare('SELECT 1 FROM approval_grants WHERE environment_id = ? AND key = ?')
        .get(environmentId, key) !== undefined
    );
  }

  close(): void {
    this.db.close();
  }
}
