import type { EnvironmentRow, InteractionRow } from './state-store.js';

import type { CredentialRows } from '../credentials/rows.js';
import type { AgentRows } from '../agents/agent-rows.js';
import type { ApprovalStore } from '../interactions/approval-store.js';
import type { SnapshotRows } from '../snapshots/snapshot-rows.js';

export type { EnvironmentRow, InteractionRow } from './state-store.js';

/**
 * The controller's durable state, whichever database holds it: a SQLite file on one host
 * (`--state-file`, {@link SqliteStateAdapter}) or PostgreSQL shared by several replicas
 * (`--state-url postgres://…`, {@link PostgresStateStore}). Async, so a server database fits.
 */
export interface ControllerStateStore {
  /** Where the state is, for logs and labels (a file path, or the URL without its password). */
  readonly location: string;
  /** True when other controller replicas may share this state (environments are not this one's alone). */
  readonly shared: boolean;
  saveEnvironment(row: EnvironmentRow): Promise<void>;
  touchEnvironment(id: string, at?: string): Promise<void>;
  setHooksJson(id: string, hooksJson: string | null): Promise<void>;
  deleteEnvironment(id: string): Promise<void>;
  environments(): Promise<EnvironmentRow[]>;
  environment(id: string): Promise<EnvironmentRow | undefined>;
  saveInteraction(row: InteractionRow): Promise<void>;
  interaction(id: string): Promise<InteractionRow | undefined>;
  interactionsWithStatus(status: string): Promise<InteractionRow[]>;
  /** The most recently updated interactions, newest first (the console's history, docs/console.md). */
  recentInteractions(limit: number): Promise<InteractionRow[]>;
  /** Removes an interaction and its steps (`DELETE /v1beta/interactions/{id}`). */
  deleteInteraction(id: string): Promise<void>;
  /** The snapshots' records (docs/environments.md, "Snapshots and forks"); optional for stand-ins. */
  readonly snapshots?: SnapshotRows;
  /** The stored credentials' rows, sealed (docs/credentials.md); optional for stand-ins. */
  readonly credentials?: CredentialRows;
  /** The stored agents' definitions (docs/agents.md); optional for stand-ins. */
  readonly agents?: AgentRows;
  /**
   * Pending and cached approvals (docs/dialects.md, "ask"), where the state is shared; a SQLite
   * file keeps them through its own connection (src/state/sqlite-approval-store.ts).
   */
  readonly approvals?: ApprovalStore;
  close(): Promise<void>;
}
