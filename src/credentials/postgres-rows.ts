import type pg from 'pg';
import { z } from 'zod';
import type { CredentialRow, CredentialRows } from './rows.js';
import type { SdkCredentialConfig } from './sdk-credential-input.js';

const rowSchema = z.object({
  id: z.string(),
  tenant: z.string().nullable(),
  name: z.string(),
  header_names: z.array(z.string()),
  has_value: z.boolean(),
  created: z.union([z.date(), z.string()]).transform((value) => new Date(value).toISOString()),
  secret: z.string(),
  config: z
    .unknown()
    .optional()
    .transform((value) => (value ? (value as SdkCredentialConfig) : null)),
});

/**
 * Credentials in PostgreSQL (the `credentials` table of migration 4, src/state/postgres-migrations.ts),
 * on the state store's pool; the `secret` column holds only sealed text.
 */
export class PostgresCredentialRows implements CredentialRows {
  constructor(private readonly pool: pg.Pool) {}

  async save(row: CredentialRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO credentials (id, tenant, name, header_names, has_value, created, secret, config)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET name = $3, header_names = $4, has_value = $5, secret = $7,
         config = $8`,
      [
        row.id,
        row.tenant,
        row.name,
        JSON.stringify(row.header_names),
        row.has_value,
        row.created,
        row.secret,
        row.config ? JSON.stringify(row.config) : null,
      ],
    );
  }

  async get(id: string): Promise<CredentialRow | undefined> {
    const result = await this.pool.query('SELECT * FROM credentials WHERE id = $1', [id]);
    return result.rows[0] === undefined ? undefined : rowSchema.parse(result.rows[0]);
  }

  async list(): Promise<CredentialRow[]> {
    const result = await this.pool.query('SELECT * FROM credentials ORDER BY created, id');
    return result.rows.map((row) => rowSchema.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM credentials WHERE id = $1', [id]);
    return (result.rowCount ?? 0) > 0;
  }
}
