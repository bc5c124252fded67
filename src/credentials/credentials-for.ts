import { PostgresStateStore } from '../state/postgres-state-store.js';
import { SqliteStateAdapter } from '../state/sqlite-state-adapter.js';
import type { ControllerStateStore } from '../state/store.js';
import { Credentials } from './credentials.js';
import { MemoryCredentialRows, type CredentialRows } from './rows.js';
import { SECRET_KEY_VARIABLE } from './secret-key.js';
import { SqliteCredentialRows } from './sqlite-rows.js';

/**
 * A controller's credentials, kept where its state is: the SQLite state file, the PostgreSQL
 * database, or (no durable state) this process's memory. The key is `secretKey` when given, else
 * `HOOKBOX_SECRET_KEY` as it is at each use.
 */
export function credentialsFor(
  state: ControllerStateStore | undefined,
  secretKey: string | undefined,
): Credentials {
  let rows: CredentialRows = new MemoryCredentialRows();
  if (state instanceof SqliteStateAdapter) rows = new SqliteCredentialRows(state.location);
  else if (state instanceof PostgresStateStore) rows = state.credentialRows();
  return new Credentials(rows, () => secretKey ?? process.env[SECRET_KEY_VARIABLE]);
}
