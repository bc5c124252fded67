// Where agent definitions are kept: the controller's state (SQLite file or PostgreSQL), or memory.
import { MemoryRows, type AgentRow, type Rows } from '../state/rows.js';

export type { AgentRow } from '../state/rows.js';

/** The rows behind {@link Agents}: the state's table, or memory. */
export type AgentRows = Rows<AgentRow>;

/** Rows in this process only (a controller without a state file or URL). */
export class MemoryAgentRows extends MemoryRows<AgentRow> implements AgentRows {}
