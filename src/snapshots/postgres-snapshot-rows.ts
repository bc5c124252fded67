// The snapshots table in PostgreSQL (migration 4 in src/state/postgres-migrations.ts).
import type pg from 'pg';
import { savedSnapshotSchema, type SnapshotRow, type SnapshotRows } from './snapshot-rows.js';

export class PostgresSnapshotRows implements SnapshotRows {
  constructor(private readonly pool: pg.Pool) {}

  async save(row: SnapshotRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO snapshots (id, environment_id, volume, created, expires_at, tenant, recipe, networked)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, recipe = excluded.recipe`,
      [
        row.id,
        row.environment_id,
        row.volume,
        row.created,
        row.expires_at,
        row.tenant,
        JSON.stringify(row.recipe),
        row.networked,
      ],
    );
  }

  async get(id: string): Promise<SnapshotRow | undefined> {
    const result = await this.pool.query('SELECT * FROM snapshots WHERE id = $1', [id]);
    return result.rows[0] === undefined ? undefined : savedSnapshotSchema.parse(result.rows[0]);
  }

  async list(): Promise<SnapshotRow[]> {
    const result = await this.pool.query('SELECT * FROM snapshots ORDER BY created');
    return result.rows.map((row) => savedSnapshotSchema.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM snapshots WHERE id = $1', [id]);
    return (result.rowCount ?? 0) > 0;
  }
}
