// Where credentials are kept: the controller's state (SQLite file or PostgreSQL), or memory.
import { MemoryRows, typedRows, type CredentialRecord, type Rows } from '../state/rows.js';
import type { SdkCredentialConfig } from './sdk-credential-input.js';

/**
 * One stored credential (src/state/rows.ts, `CredentialRecord`), its `config` typed: a credential
 * of the Gemini SDKs' types, its type and public settings, never a secret (docs/credentials.md,
 * "The SDKs' credential types"); null for hookbox's own kind.
 */
export type CredentialRow = Omit<CredentialRecord, 'config'> & {
  config?: SdkCredentialConfig | null;
};

/** The rows behind {@link Credentials}; each state store has its own, and closes it with itself. */
export type CredentialRows = Rows<CredentialRow>;

/** Rows in this process only (a controller without a state file or URL). */
export class MemoryCredentialRows extends MemoryRows<CredentialRow> implements CredentialRows {}

/** The state's credential records as {@link CredentialRows}. */
export function credentialRowsOf(records: Rows<CredentialRecord>): CredentialRows {
  return typedRows<CredentialRecord, CredentialRow>(
    records,
    // The config was written by this code from a checked request (src/credentials/sdk-credential-input.ts).
    (record) => ({ ...record, config: (record.config ?? null) as SdkCredentialConfig | null }),
    (row) => ({ ...row, config: row.config ? { ...row.config } : null }),
  );
}
