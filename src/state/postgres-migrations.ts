/**
 * The PostgreSQL schema, as numbered migrations applied in order, each once, each in its own
 * transaction, recorded in `hookbox_migrations` (docs/kubernetes.md, Several replicas). Never edit a
 * migration that has shipped: add the next one. Replicas starting together take an advisory lock,
 * so only one applies them.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
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

/** Any constant key for pg_advisory_xact_lock: "hookbox" in ASCII. */
export const MIGRATION_LOCK_KEY = 0x686f6f6b626f78;
