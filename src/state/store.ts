import type { ApprovalStore } from './approvals.js';
import type {
  AgentRow,
  CredentialRecord,
  EnvironmentRow,
  InteractionRow,
  Rows,
  SnapshotRecord,
} from './rows.js';

export type { EnvironmentRow, InteractionRow } from './rows.js';

/**
 * The controller's durable state, whichever database holds it: a SQLite file on one host
 * (`--state-file`) or PostgreSQL shared by several replicas (`--state-url postgres://…`). One
 * implementation for both, {@link SqlStateStore} (src/state/sql-state-store.ts), over one list of
 * migrations (docs/operations.md, "The state file"). Async, so a server database fits.
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
  /** Saves an interaction's head (its steps are rows of their own: the methods below). */
  saveInteraction(row: InteractionRow): Promise<void>;
  /** Replaces an interaction's saved steps (with `saveInteraction`, a save of the whole). */
  replaceInteractionSteps(id: string, steps: readonly unknown[]): Promise<void>;
  /** Saves step `index`: a row of its own, so saving never rewrites the steps before it. */
  appendInteractionStep(id: string, index: number, step: unknown): Promise<void>;
  /** The steps saved as rows, in order (an interaction stored before keeps them in its body). */
  interactionSteps(id: string): Promise<unknown[]>;
  interaction(id: string): Promise<InteractionRow | undefined>;
  interactionsWithStatus(status: string): Promise<InteractionRow[]>;
  /** The most recently updated interactions, newest first (the console's history, docs/console.md). */
  recentInteractions(limit: number): Promise<InteractionRow[]>;
  /** Removes an interaction and its steps (`DELETE /v1beta/interactions/{id}`). */
  deleteInteraction(id: string): Promise<void>;
  /** The snapshots' records (docs/environments.md, "Snapshots and forks"). */
  readonly snapshots: Rows<SnapshotRecord>;
  /** The stored credentials' rows, sealed (docs/credentials.md). */
  readonly credentials: Rows<CredentialRecord>;
  /** The stored agents' definitions (docs/agents.md). */
  readonly agents: Rows<AgentRow>;
  /** Pending and cached approvals (docs/dialects.md, "ask"). */
  readonly approvals: ApprovalStore;
  close(): Promise<void>;
}
