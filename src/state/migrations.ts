import { sql, type Kysely, type Migration } from 'kysely';

/** The database a migration runs on: the same steps, each dialect's column types. */
export type Dialect = 'sqlite' | 'postgres';

/** Column types by what they hold: PostgreSQL has its own; SQLite keeps text and integers. */
const TYPES = {
  postgres: { stamp: 'timestamptz', json: 'jsonb', flag: 'boolean' },
  sqlite: { stamp: 'text', json: 'text', flag: 'integer' },
} as const;

type Types = (typeof TYPES)[Dialect];
// Migrations run before any table has a type, as Kysely's own Migration interface has them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

/**
 * Adds a column unless it is there. Databases made before this list (a SQLite file whose tables
 * were created as each store opened, a PostgreSQL database numbered by `hookbox_migrations`) hold
 * some of these steps already: every step is written so that it finds them and adds only what is
 * missing (docs/operations.md, "Upgrades").
 */
async function addColumn(db: Db, table: string, column: string, type: string): Promise<void> {
  const tables = await db.introspection.getTables();
  const found = tables.find((each) => each.name === table);
  if (found?.columns.some((each) => each.name === column)) return;
  await db.schema
    .alterTable(table)
    .addColumn(column, sql.raw(type) as never)
    .execute();
}

/** One step of the schema: a name that sorts in order, and what it does. */
interface Step {
  name: string;
  up(db: Db, types: Types): Promise<void>;
}

/**
 * The schema of the controller's state, SQLite file and PostgreSQL alike: applied in order, each
 * once, recorded in `hookbox_schema` (Kysely's Migrator). A shipped step is never edited; the next
 * one is added. Steps 01–09 are the PostgreSQL migrations of `hookbox_migrations` and the tables
 * the SQLite stores created for themselves, under one list.
 */
export const MIGRATIONS: readonly Step[] = [
  {
    name: '01 environments and interactions',
    async up(db, t) {
      await db.schema
        .createTable('environments')
        .ifNotExists()
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('container_id', 'text', (c) => c.notNull())
        .addColumn('created', sql.raw(t.stamp), (c) => c.notNull())
        .addColumn('settings', sql.raw(t.json), (c) => c.notNull())
        .addColumn('hooks_json', 'text')
        .addColumn('last_used', sql.raw(t.stamp), (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('interactions')
        .ifNotExists()
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('environment_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('body', sql.raw(t.json), (c) => c.notNull())
        .addColumn('updated', sql.raw(t.stamp), (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('interactions_status')
        .ifNotExists()
        .on('interactions')
        .column('status')
        .execute();
    },
  },
  {
    name: '02 which replica made an environment',
    up: (db) => addColumn(db, 'environments', 'controller_id', 'text'),
  },
  {
    name: '03 the tenant that made each environment and interaction (docs/tenants.md)',
    async up(db) {
      await addColumn(db, 'environments', 'tenant', 'text');
      await addColumn(db, 'interactions', 'tenant', 'text');
    },
  },
  {
    name: '04 credentials, their secret part sealed (docs/credentials.md)',
    async up(db, t) {
      await db.schema
        .createTable('credentials')
        .ifNotExists()
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('header_names', sql.raw(t.json), (c) => c.notNull())
        .addColumn('has_value', sql.raw(t.flag), (c) => c.notNull())
        .addColumn('created', sql.raw(t.stamp), (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: '05 snapshots (docs/environments.md, "Snapshots and forks")',
    async up(db, t) {
      await db.schema
        .createTable('snapshots')
        .ifNotExists()
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('environment_id', 'text', (c) => c.notNull())
        .addColumn('volume', 'text', (c) => c.notNull())
        .addColumn('created', sql.raw(t.stamp), (c) => c.notNull())
        .addColumn('expires_at', sql.raw(t.stamp), (c) => c.notNull())
        .addColumn('tenant', 'text')
        .addColumn('recipe', sql.raw(t.json), (c) => c.notNull())
        .addColumn('networked', sql.raw(t.flag), (c) => c.notNull())
        .execute();
    },
  },
  {
    name: '06 pending and cached approvals (docs/dialects.md, "ask")',
    async up(db, t) {
      await db.schema
        .createTable('approvals')
        .ifNotExists()
        .addColumn('call_id', 'text', (c) => c.primaryKey())
        .addColumn('interaction_id', 'text', (c) => c.notNull())
        .addColumn('environment_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('body', sql.raw(t.json), (c) => c.notNull())
        .addColumn('expires_at', sql.raw(t.stamp), (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('approval_grants')
        .ifNotExists()
        .addColumn('environment_id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('created', sql.raw(t.stamp), (c) => c.notNull())
        .addPrimaryKeyConstraint('approval_grants_pkey', ['environment_id', 'key'])
        .execute();
    },
  },
  {
    name: "07 the Gemini SDKs' credential types: type and public settings (docs/credentials.md)",
    up: (db, t) => addColumn(db, 'credentials', 'config', t.json),
  },
  {
    name: '08 agents: stored definitions, per tenant (docs/agents.md)',
    async up(db, t) {
      await db.schema
        .createTable('agents')
        .ifNotExists()
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant', 'text')
        .addColumn('created', sql.raw(t.stamp), (c) => c.notNull())
        .addColumn('body', sql.raw(t.json), (c) => c.notNull())
        .execute();
    },
  },
  {
    name: "09 the console's history after a restart: the most recently updated interactions (docs/console.md)",
    async up(db) {
      await db.schema
        .createIndex('interactions_updated')
        .ifNotExists()
        .on('interactions')
        .column('updated')
        .execute();
    },
  },
  {
    name: "10 an interaction's steps, one row each: saving a step never rewrites the ones before",
    async up(db, t) {
      await db.schema
        .createTable('interaction_steps')
        .ifNotExists()
        .addColumn('interaction_id', 'text', (c) => c.notNull())
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('step', sql.raw(t.json), (c) => c.notNull())
        .addPrimaryKeyConstraint('interaction_steps_pkey', ['interaction_id', 'idx'])
        .execute();
    },
  },
];

/** The list as Kysely's Migrator takes it, with the dialect's column types. */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(
    MIGRATIONS.map((step) => [step.name, { up: (db: Db) => step.up(db, TYPES[dialect]) }]),
  );
}
