// Where credentials are kept: the controller's state (SQLite file or PostgreSQL), or memory.
import { MemoryRows } from '../state/memory-rows.js';
import type { SdkCredentialConfig } from './sdk-credential-input.js';

/** One stored credential: what GET shows in clear, the secret part sealed (docs/credentials.md). */
export interface CredentialRow {
  id: string;
  /** The tenant that made it (docs/tenants.md); null: the library's, or a server with no keys. */
  tenant: string | null;
  name: string;
  /** Names of the headers it adds (values are sealed in `secret`). */
  header_names: string[];
  /** Whether it holds a `value` (usable as an environment-variable placeholder). */
  has_value: boolean;
  created: string;
  /** `{value?, headers?}` as JSON, sealed with AES-256-GCM (src/credentials/secret-key.ts). */
  secret: string;
  /**
   * A credential of the Gemini SDKs' types: its type and public settings, never a secret
   * (docs/credentials.md, "The SDKs' credential types"); null for hookbox's own kind.
   */
  config?: SdkCredentialConfig | null;
}

/** The rows behind {@link Credentials}; each state store has its own, and closes it with itself. */
export interface CredentialRows {
  /** Stores a row, replacing one of the same id (an update). */
  save(row: CredentialRow): Promise<void>;
  get(id: string): Promise<CredentialRow | undefined>;
  /** Every row, oldest first. */
  list(): Promise<CredentialRow[]>;
  /** True when a row was removed. */
  delete(id: string): Promise<boolean>;
}

/** Rows in this process only (a controller without a state file or URL). */
export class MemoryCredentialRows extends MemoryRows<CredentialRow> implements CredentialRows {}
