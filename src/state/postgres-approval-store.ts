import type pg from 'pg';
import type { ApprovalStore, PendingApproval } from '../interactions/approval-store.js';
import { approvalRowSchema } from './approval-row-schema.js';

/**
 * Pending and cached approvals in PostgreSQL (the tables of migration 6,
 * src/state/postgres-migrations.ts), on the state store's pool: a call waiting for its approver
 * survives a restart, and any replica can take the answer (docs/kubernetes.md, Several replicas).
 * Rows are validated when read back.
 */
export class PostgresApprovalStore implements ApprovalStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(approval: PendingApproval): Promise<void> {
    await this.pool.query(
      `INSERT INTO approvals (call_id, interaction_id, environment_id, status, body, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (call_id) DO UPDATE SET status = EXCLUDED.status, body = EXCLUDED.body,
         expires_at = EXCLUDED.expires_at`,
      [
        approval.call_id,
        approval.interaction_id,
        approval.environment_id,
        approval.status,
        JSON.stringify(approval),
        approval.expires_at,
      ],
    );
  }

  async get(callId: string): Promise<PendingApproval | undefined> {
    const result = await this.pool.query<{ body: unknown }>(
      'SELECT body FROM approvals WHERE call_id = $1',
      [callId],
    );
    const row = result.rows[0];
    return row === undefined ? undefined : approvalRowSchema.parse(row.body);
  }

  async addGrant(environmentId: string, key: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO approval_grants (environment_id, key, created) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [environmentId, key, new Date().toISOString()],
    );
  }

  async hasGrant(environmentId: string, key: string): Promise<boolean> {
    const result = await this.pool.query(
      'SELECT 1 FROM approval_grants WHERE environment_id = $1 AND key = $2',
      [environmentId, key],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
