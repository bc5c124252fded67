import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Random bytes drawn from the system a page at a time: every call takes an id, and one `getrandom`
 * per id cost ~0.05 ms on a virtual machine (docs/gates.md, "Costs and bounds"). The pool is the
 * same CSPRNG output, each byte used once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function token(length: number): string {
  if (poolOffset + length > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + length);
  poolOffset += length;
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

/** `env_` followed by 20 random base-32 characters (100 bits). */
export const newEnvironmentId = (): string => `env_${token(20)}`;
/** `call_` followed by 16 random base-32 characters; also a call that never reached an environment (a model's malformed call). */
export const newCallId = (): string => `call_${token(16)}`;
/** `int_` followed by 20 random base-32 characters (100 bits). */
export const newInteractionId = (): string => `int_${token(20)}`;
export const newControllerId = (): string => `ctl_${token(12)}`;

/** Whether a string has the shape of an environment id (before looking it up). */
export const isEnvironmentId = (value: string): boolean => /^env_[a-z2-7]{20}$/.test(value);

/** `snap_` followed by 20 random base-32 characters (docs/environments.md, "Snapshots and forks"). */
export const newSnapshotId = (): string => `snap_${token(20)}`;
/** The shape of a snapshot id, checked before it is looked up. */
export const SNAPSHOT_ID_PATTERN = /^snap_[a-z2-7]{20}$/;

/** `cred_` followed by 20 random base-32 characters (docs/credentials.md). */
export const newCredentialId = (): string => `cred_${token(20)}`;
/**
 * What a credential reference may look like: hookbox's `cred_…`, or an id a client chose (the
 * Gemini SDKs' credentials, docs/credentials.md); an id of that shape that is not stored is a 400 later.
 */
export const CREDENTIAL_ID_PATTERN = /^(?:cred_[a-z2-7]{1,64}|[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?)$/;
