// The records the controller's state holds, as the state layer sees them: plain rows whose JSON
// parts are objects. The features that own them (snapshots/, credentials/, agents/) give those parts
// their types (docs/operations.md, "The state file").

/** What the controller needs to bring an environment back after a restart. */
export interface EnvironmentRow {
  id: string;
  container_id: string;
  created: string;
  /** The settings it was made with (vocabulary, timeouts, caps, background processes, limits). */
  settings: Record<string, unknown>;
  /** The hooks.json in force (null: no hooks). */
  hooks_json: string | null;
  last_used: string;
  /** The tenant that made it (docs/tenants.md); null: none (the library, or an older state file). */
  tenant?: string | null;
}

/**
 * A stored interaction's head: its JSON as the API returns it but for the steps, which are rows of
 * their own (an interaction stored before that keeps its steps in `body.steps`), plus what queries
 * need.
 */
export interface InteractionRow {
  id: string;
  environment_id: string | null;
  status: string;
  body: Record<string, unknown>;
  updated: string;
  /** The tenant that made it; null: none. */
  tenant?: string | null;
}

/** One snapshot's record; its files are in its volume on the engine's host. */
export interface SnapshotRecord {
  id: string;
  /** The environment it was taken of. */
  environment_id: string;
  /** The Docker volume holding its `workspace/` and `agents/` trees. */
  volume: string;
  created: string;
  expires_at: string;
  /** The tenant whose environment it came from (docs/tenants.md); null: none. */
  tenant: string | null;
  /** How to make its environment again (checked by snapshots/ when read back). */
  recipe: Record<string, unknown>;
  /**
   * Its environment had a network: the allowlist (whose transforms may hold secrets) is kept in
   * this process's memory only, so after a restart the snapshot can no longer be restored.
   */
  networked: boolean;
}

/** One stored credential: what GET shows in clear, the secret part sealed (docs/credentials.md). */
export interface CredentialRecord {
  id: string;
  /** The tenant that made it (docs/tenants.md); null: the library's, or a server with no keys. */
  tenant: string | null;
  name: string;
  /** Names of the headers it adds (values are sealed in `secret`). */
  header_names: string[];
  /** Whether it holds a `value` (usable as an environment-variable placeholder). */
  has_value: boolean;
  created: string;
  /** `{value?, headers?}` as JSON, sealed with AES-256-GCM (src/credentials/secret-key.ts). */
  secret: string;
  /** A credential of the Gemini SDKs' types: its type and public settings, never a secret. */
  config?: Record<string, unknown> | null;
}

/** One stored agent (docs/agents.md): the definition as the SDKs send it, and who made it. */
export interface AgentRow {
  id: string;
  /** The tenant that made it (docs/tenants.md); null: a server with no keys. */
  tenant: string | null;
  created: string;
  /** The checked definition: `base_agent`, `base_environment`, `system_instruction`, … */
  body: Record<string, unknown>;
}

/** Records by id in one table: snapshots, credentials, agents. */
export interface Rows<Row extends { id: string }> {
  /** Stores a row, replacing one of the same id (an update). */
  save(row: Row): Promise<void>;
  get(id: string): Promise<Row | undefined>;
  /** Every row, oldest first. */
  list(): Promise<Row[]>;
  /** True when a row was removed. */
  delete(id: string): Promise<boolean>;
}

/** Rows by id in this process only (no state file or URL), copied in and out. */
export class MemoryRows<Row extends { id: string }> implements Rows<Row> {
  private readonly rows = new Map<string, Row>();

  async save(row: Row): Promise<void> {
    this.rows.set(row.id, { ...row });
  }

  async get(id: string): Promise<Row | undefined> {
    const row = this.rows.get(id);
    return row ? { ...row } : undefined;
  }

  /** Every row, in the order they were saved. */
  async list(): Promise<Row[]> {
    return [...this.rows.values()].map((row) => ({ ...row }));
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }
}

/**
 * Stored rows seen through a feature's own row type: `read` checks and types what comes back,
 * `write` gives what is saved its stored shape.
 */
export function typedRows<Stored extends { id: string }, Row extends { id: string }>(
  rows: Rows<Stored>,
  read: (stored: Stored) => Row,
  write: (row: Row) => Stored,
): Rows<Row> {
  return {
    save: (row) => rows.save(write(row)),
    get: async (id) => {
      const stored = await rows.get(id);
      return stored === undefined ? undefined : read(stored);
    },
    list: async () => (await rows.list()).map(read),
    delete: (id) => rows.delete(id),
  };
}
