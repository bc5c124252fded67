// The schema of the controller's state as the code before the one store (src/state/sql-state-store.ts)
// made it, copied here so the upgrade tests can make such a database and open it with today's code
// (docs/operations.md, "Upgrades"). Never edited: it is what shipped.

/** PostgreSQL: numbered migrations recorded in `hookbox_migrations` (versions 1–9). */
export const OLD_POSTGRES_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'environments and interactions',
    sql: `
      CREATE TABLE environments (
        id TEXT PRIMARY KEY,
        container_id TEXT NOT NULL,
        created TIMESTAMPTZ NOT NULL,
        settings JSONB NOT NULL,
        hooks_json TEXT,
        last_used TIMESTAMPTZ NOT NULL
      );
      CREATE TABLE interactions (
        id TEXT PRIMARY KEY,
        environment_id TEXT,
        status TEXT NOT NULL,
        body JSONB NOT NULL,
        updated TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX interactions_status ON interactions (status);`,
  },
  {
    version: 2,
    name: 'which replica made an environment',
    sql: `ALTER TABLE environments ADD COLUMN controller_id TEXT;`,
  },
  {
    version: 3,
    name: 'the tenant that made each environment and interaction (docs/tenants.md)',
    sql: `ALTER TABLE environments ADD COLUMN tenant TEXT;
      ALTER TABLE interactions ADD COLUMN tenant TEXT;`,
  },
  {
    version: 4,
    name: 'credentials, their secret part sealed (docs/credentials.md)',
    sql: `CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        tenant TEXT,
        name TEXT NOT NULL,
        header_names JSONB NOT NULL,
        has_value BOOLEAN NOT NULL,
        created TIMESTAMPTZ NOT NULL,
        secret TEXT NOT NULL
      );`,
  },
  {
    version: 5,
    name: 'snapshots (docs/environments.md, "Snapshots and forks")',
    sql: `CREATE TABLE snapshots (
        id TEXT PRIMARY KEY,
        environment_id TEXT NOT NULL,
        volume TEXT NOT NULL,
        created TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        tenant TEXT,
        recipe JSONB NOT NULL,
        networked BOOLEAN NOT NULL
      );`,
  },
  {
    version: 6,
    name: 'pending and cached approvals (docs/dialects.md, "ask")',
    sql: `CREATE TABLE approvals (
        call_id TEXT PRIMARY KEY,
        interaction_id TEXT NOT NULL,
        environment_id TEXT NOT NULL,
        status TEXT NOT NULL,
        body JSONB NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
      );
      CREATE TABLE approval_grants (
        environment_id TEXT NOT NULL,
        key TEXT NOT NULL,
        created TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (environment_id, key)
      );`,
  },
  {
    version: 7,
    name: "the Gemini SDKs' credential types: type and public settings (docs/credentials.md)",
    sql: `ALTER TABLE credentials ADD COLUMN config JSONB;`,
  },
  {
    version: 8,
    name: 'agents: stored definitions, per tenant (docs/agents.md)',
    sql: `CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        tenant TEXT,
        created TIMESTAMPTZ NOT NULL,
        body JSONB NOT NULL
      );`,
  },
  {
    version: 9,
    name: "the console's history after a restart: the most recently updated interactions (docs/console.md)",
    sql: `CREATE INDEX interactions_updated ON interactions (updated);`,
  },
];

/** How it recorded them: the table, created before the first. */
export const OLD_POSTGRES_VERSION_TABLE = `CREATE TABLE IF NOT EXISTS hookbox_migrations (
  version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TIMESTAMPTZ NOT NULL DEFAULT now())`;

/**
 * SQLite: the tables each store created for itself on its own connection to the file, with the
 * columns added later (`tenant`, `config`) in place.
 */
export const OLD_SQLITE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS environments (
    id TEXT PRIMARY KEY, container_id TEXT NOT NULL, created TEXT NOT NULL,
    settings TEXT NOT NULL, hooks_json TEXT, last_used TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS interactions (
    id TEXT PRIMARY KEY, environment_id TEXT, status TEXT NOT NULL, body TEXT NOT NULL, updated TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS interactions_status ON interactions(status);
  CREATE INDEX IF NOT EXISTS interactions_updated ON interactions(updated);
  CREATE TABLE IF NOT EXISTS interaction_steps (
    interaction_id TEXT NOT NULL, idx INTEGER NOT NULL, step TEXT NOT NULL,
    PRIMARY KEY (interaction_id, idx));
  ALTER TABLE environments ADD COLUMN tenant TEXT;
  ALTER TABLE interactions ADD COLUMN tenant TEXT;
  CREATE TABLE IF NOT EXISTS approvals (
    call_id TEXT PRIMARY KEY, interaction_id TEXT NOT NULL, environment_id TEXT NOT NULL,
    status TEXT NOT NULL, body TEXT NOT NULL, expires_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS approval_grants (
    environment_id TEXT NOT NULL, key TEXT NOT NULL, created TEXT NOT NULL,
    PRIMARY KEY (environment_id, key));
  CREATE TABLE IF NOT EXISTS credentials (
    id TEXT PRIMARY KEY, tenant TEXT, name TEXT NOT NULL, header_names TEXT NOT NULL,
    has_value INTEGER NOT NULL, created TEXT NOT NULL, secret TEXT NOT NULL);
  ALTER TABLE credentials ADD COLUMN config TEXT;
  CREATE TABLE IF NOT EXISTS snapshots (
    id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, volume TEXT NOT NULL, created TEXT NOT NULL,
    expires_at TEXT NOT NULL, tenant TEXT, recipe TEXT NOT NULL, networked INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS agents (
    id TEXT PRIMARY KEY, tenant TEXT, created TEXT NOT NULL, body TEXT NOT NULL);
`;
