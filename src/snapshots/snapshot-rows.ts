// Where snapshots' records are kept: memory (no state), or the controller's state (SQLite file or
// PostgreSQL, src/state/sql-rows.ts), whose recipe is checked here when read back.
import { MemoryRows, typedRows, type Rows, type SnapshotRecord } from '../state/rows.js';
import { recipeSchema, type EnvironmentRecipe } from './recipe.js';

/** One snapshot's record (src/state/rows.ts, `SnapshotRecord`) with its recipe typed. */
export type SnapshotRow = Omit<SnapshotRecord, 'recipe'> & { recipe: EnvironmentRecipe };

/** The snapshots' records, whichever store holds them. */
export type SnapshotRows = Rows<SnapshotRow>;

/** Without a state file: records last as long as the process. */
export class MemorySnapshotRows extends MemoryRows<SnapshotRow> implements SnapshotRows {}

/** The state's snapshot records, each recipe checked when read back (saved state is a trust boundary). */
export function snapshotRowsOf(records: Rows<SnapshotRecord>): SnapshotRows {
  return typedRows<SnapshotRecord, SnapshotRow>(
    records,
    (record) => ({ ...record, recipe: recipeSchema.parse(record.recipe) }),
    (row) => ({ ...row, recipe: { ...row.recipe } }),
  );
}
