import Database from 'better-sqlite3';

/**
 * A connection to the controller's SQLite state file, as every store of it opens one: WAL (readers
 * never wait for the writer), every commit synced (a restart finds what was answered), and up to 5 s
 * of waiting for another connection's lock. `schema` creates the store's own tables if missing.
 */
export function openStateFile(path: string, schema: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(schema);
  return db;
}
