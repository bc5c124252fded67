// Records kept in this process only: a controller without a state file or URL (snapshots, credentials).

/** Rows by id, copied in and out so a caller's change to one never reaches the store. */
export class MemoryRows<Row extends { id: string }> {
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

  /** True when a row was removed. */
  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }
}
