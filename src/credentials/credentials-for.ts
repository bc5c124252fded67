import type { ControllerStateStore } from '../state/store.js';
import { Credentials } from './credentials.js';
import { credentialRowsOf, MemoryCredentialRows } from './rows.js';
import { SECRET_KEY_VARIABLE } from './secret-key.js';

/**
 * A controller's credentials, kept where its state is (the SQLite state file or the PostgreSQL
 * database, which close them with themselves) or, with no durable state, in this process's memory.
 * The key is `secretKey` when given, else `HOOKBOX_SECRET_KEY` as it is at each use.
 */
export function credentialsFor(
  state: ControllerStateStore | undefined,
  secretKey: string | undefined,
): Credentials {
  return new Credentials(
    state?.credentials ? credentialRowsOf(state.credentials) : new MemoryCredentialRows(),
    () => secretKey ?? process.env[SECRET_KEY_VARIABLE],
  );
}
