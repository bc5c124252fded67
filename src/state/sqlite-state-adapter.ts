import type { ControllerStateStore, EnvironmentRow, InteractionRow } from './store.js';
import { StateStore } from './state-store.js';
import { SqliteSnapshotRows } from '../snapshots/snapshot-rows.js';
import { SqliteCredentialRows } from '../credentials/sqlite-rows.js';
import { SqliteAgentRows } from '../agents/agent-rows.js';

/** The SQLite state file behind the {@link ControllerStateStore} interface (one host, one controller). */
export class SqliteStateAdapter implements ControllerStateStore {
  readonly shared = false;
  readonly sqlite: StateStore;

  constructor(path: string) {
    this.sqlite = new StateStore(path);
    this.snapshots = new SqliteSnapshotRows(path);
    this.credentials = new SqliteCredentialRows(path);
    this.agents = new SqliteAgentRows(path);
  }

  /** The agents' definitions (docs/agents.md), in a table of the same file. */
  readonly agents: SqliteAgentRows;

  /** The snapshots' records (docs/environments.md, "Snapshots and forks"). */
  readonly snapshots: SqliteSnapshotRows;
  /** The credentials' rows (docs/credentials.md), in a table of the same file. */
  readonly credentials: SqliteCredentialRows;

  get location(): string {
    return this.sqlite.path;
  }

  async saveEnvironment(row: EnvironmentRow): Promise<void> {
    this.sqlite.saveEnvironment(row);
  }

  async touchEnvironment(id: string, at?: string): Promise<void> {
    this.sqlite.touchEnvironment(id, at);
  }

  async setHooksJson(id: string, hooksJson: string | null): Promise<void> {
    this.sqlite.setHooksJson(id, hooksJson);
  }

  async deleteEnvironment(id: string): Promise<void> {
    this.sqlite.deleteEnvironment(id);
  }

  async environments(): Promise<EnvironmentRow[]> {
    return this.sqlite.environments();
  }

  async environment(id: string): Promise<EnvironmentRow | undefined> {
    return this.sqlite.environments().find((row) => row.id === id);
  }

  async saveInteraction(row: InteractionRow): Promise<void> {
    this.sqlite.saveInteraction(row);
  }

  async interaction(id: string): Promise<InteractionRow | undefined> {
    return this.sqlite.interaction(id);
  }

  async deleteInteraction(id: string): Promise<void> {
    this.sqlite.deleteInteraction(id);
  }

  async recentInteractions(limit: number): Promise<InteractionRow[]> {
    return this.sqlite
      .recentInteractions(limit)
      .flatMap((row) => this.sqlite.interaction(row.id) ?? []);
  }

  async interactionsWithStatus(status: string): Promise<InteractionRow[]> {
    return this.sqlite.interactionsWithStatus(status);
  }

  async close(): Promise<void> {
    this.snapshots.close();
    this.credentials.close();
    this.agents.close();
    this.sqlite.close();
  }
}
