// The key credentials are encrypted with, and the encryption itself (docs/credentials.md, "The key").
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { SystemError } from '../errors/index.js';

/** The environment variable `hookbox serve` (and the library, by default) reads the key from. */
export const SECRET_KEY_VARIABLE = 'HOOKBOX_SECRET_KEY';

/** A passphrase shorter than this is refused: it would be guessable. */
export const MIN_PASSPHRASE_CHARS = 32;

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = 'hookbox credentials';
const HKDF_INFO = 'aes-256-gcm v1';

function unavailable(message: string): SystemError {
  return new SystemError('credentials_unavailable', message, {
    details: { field: SECRET_KEY_VARIABLE },
  });
}

/**
 * The 32-byte AES key of a `HOOKBOX_SECRET_KEY` value: 64 hex digits, or base64 of exactly 32 bytes
 * (`openssl rand -base64 32`), are the key itself; any other string of at least 32 characters is a
 * passphrase stretched with HKDF-SHA256. Missing or shorter: a `credentials_unavailable` error
 * naming the variable (HTTP 503: the server cannot keep secrets until its operator sets it).
 */
export function secretKeyOf(text: string | undefined): Buffer {
  const value = text?.trim() ?? '';
  if (value === '')
    throw unavailable(
      `${SECRET_KEY_VARIABLE} is not set: credentials are stored encrypted with it, so none can be stored or used; set it to 32 random bytes, e.g. HOOKBOX_SECRET_KEY=$(openssl rand -base64 32) (docs/credentials.md)`,
    );
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 32) return bytes;
  }
  if (value.length < MIN_PASSPHRASE_CHARS)
    throw unavailable(
      `${SECRET_KEY_VARIABLE} is too short: give 32 bytes as 64 hex digits or base64 (openssl rand -base64 32), or a passphrase of at least ${MIN_PASSPHRASE_CHARS} characters (docs/credentials.md)`,
    );
  return Buffer.from(hkdfSync('sha256', value, HKDF_SALT, HKDF_INFO, 32));
}

/**
 * Encrypts with AES-256-GCM under a fresh random 96-bit nonce; `context` (the credential's id and
 * tenant) is authenticated too, so a sealed value copied onto another row does not open. The result
 * is `v1:` and base64 of nonce, tag and ciphertext.
 */
export function seal(key: Buffer, plaintext: string, context: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** Opens what {@link seal} made; a wrong key, context or a changed value is a clear error. */
export function unseal(key: Buffer, sealed: string, context: string, what: string): string {
  const [version, payload] = sealed.split(':', 2);
  const bytes = Buffer.from(payload ?? '', 'base64');
  if (version !== VERSION || bytes.length < NONCE_BYTES + TAG_BYTES)
    throw unavailable(`${what}: its stored value is not in a format this hookbox reads`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    const body = bytes.subarray(NONCE_BYTES + TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw unavailable(
      `${what} cannot be decrypted with this ${SECRET_KEY_VARIABLE}: it was stored under another key (or its row was changed); start the server with the key it was stored with, or delete the credential and store it again`,
    );
  }
}

/**
 * What `hookbox serve` says at start-up when credentials cannot be stored or used (the key is
 * missing or too short), so an operator learns it then rather than from a client's 503; undefined
 * when the key is usable.
 */
export function secretKeyWarning(text: string | undefined): string | undefined {
  try {
    secretKeyOf(text);
    return undefined;
  } catch (error) {
    return `credentials are off: ${(error as Error).message}`;
  }
}
