import type Database from 'better-sqlite3';
import { z } from 'zod';
import { openStateFile } from '../state/sqlite-file.js';
import type { CredentialRow, CredentialRows } from './rows.js';
import type { SdkCredentialConfig } from './sdk-credential-input.js';

const rowSchema = z.object({
  id: z.string(),
  tenant: z.string().nullable(),
  name: z.string(),
  header_names: z.string().transform((text) => z.array(z.string()).parse(JSON.parse(text))),
  has_value: z.number().transform((flag) => flag !== 0),
  created: z.string(),
  secret: z.string(),
  config: z
    .string()
    .nullable()
    .optional()
    .transform((text) => (text ? (JSON.parse(text) as SdkCredentialConfig) : null)),
});

/**
 * Credentials in the controller's SQLite state file: its own connection and table, like the
 * approvals. The `secret` column holds only sealed text (docs/credentials.md, "Storage").
 */
export class SqliteCredentialRows implements CredentialRows {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = openStateFile(
      path,
      `CREATE TABLE IF NOT EXISTS credentials (
        id TEXT PRIMARY KEY, tenant TEXT, name TEXT NOT NULL, header_names TEXT NOT NULL,
        has_value INTEGER NOT NULL, created TEXT NOT NULL, secret TEXT NOT NULL);`,
    );
    // State files from before the SDKs' credential types have no `config` column.
    const columns = this.db.prepare('PRAGMA table_info(credentials)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'config'))
      this.db.exec('ALTER TABLE credentials ADD COLUMN config TEXT');
  }

  async save(row: CredentialRow): Promise<void> {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO credentials
           (id, tenant, name, header_names, has_value, created, secret, config)
         VALUES (@id, @tenant, @name, @header_names, @has_value, @created, @secret, @config)`,
      )
      .run({
        ...row,
        header_names: JSON.stringify(row.header_names),
        has_value: row.has_value ? 1 : 0,
        config: row.config ? JSON.stringify(row.config) : null,
      });
  }

  async get(id: string): Promise<CredentialRow | undefined> {
    const row = this.db.prepare('SELECT * FROM credentials WHERE id = ?').get(id);
    return row === undefined ? undefined : rowSchema.parse(row);
  }

  async list(): Promise<CredentialRow[]> {
    return this.db
      .prepare('SELECT * FROM credentials ORDER BY created, id')
      .all()
      .map((row) => rowSchema.parse(row));
  }

  async delete(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM credentials WHERE id = ?').run(id).changes > 0;
  }

  close(): void {
    this.db.close();
  }
}
