import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { UserError } from '../errors/index.js';
import { requestKey } from '../tenants/keys.js';

export { requestKey } from '../tenants/keys.js';

/**
 * API keys: from `HOOKBOX_API_KEYS` (comma-separated) and from `--api-keys-file` (one key per line;
 * blank lines and lines starting with `#` are ignored). Both may be given; every key counts.
 */
export function loadApiKeys(options: {
  env?: Record<string, string | undefined>;
  file?: string;
}): string[] {
  const keys: string[] = [];
  const fromEnv = (options.env ?? process.env).HOOKBOX_API_KEYS;
  if (fromEnv) keys.push(...fromEnv.split(',').map((key) => key.trim()));
  if (options.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.file, 'utf8');
    } catch (error) {
      throw new UserError(
        'invalid_argument',
        `--api-keys-file: cannot read ${options.file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        { details: { field: '--api-keys-file' } },
      );
    }
    const lines = text.split(/\r?\n/).map((line) => line.trim());
    const fileKeys = lines.filter((line) => line !== '' && !line.startsWith('#'));
    if (fileKeys.length === 0) {
      throw new UserError('invalid_argument', `--api-keys-file: ${options.file} holds no key`, {
        details: { field: '--api-keys-file' },
      });
    }
    keys.push(...fileKeys);
  }
  const usable = keys.filter((key) => key !== '');
  for (const key of usable) {
    if (/\s/.test(key) || key.length < 8) {
      throw new UserError(
        'invalid_argument',
        'API keys must be at least 8 characters with no spaces (HOOKBOX_API_KEYS / --api-keys-file)',
        { details: { field: 'HOOKBOX_API_KEYS' } },
      );
    }
  }
  return [...new Set(usable)];
}

/** Whether a listen address only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}

/**
 * Refuses to serve without a key anywhere but on loopback: the API runs code.
 */
export function checkListenSafety(host: string, keys: readonly unknown[]): void {
  if (keys.length === 0 && !isLoopbackHost(host)) {
    throw new UserError(
      'invalid_argument',
      `--host ${host}: refusing to listen beyond loopback with no API key; set HOOKBOX_API_KEYS or --api-keys-file (without a key, hookbox serve only listens on 127.0.0.1 or ::1)`,
      { details: { field: '--host' } },
    );
  }
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Checks request keys against the configured ones in constant time: every key is compared (as a
 * SHA-256 digest, so lengths never leak), with no early exit.
 */
export class ApiKeyChecker {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  /** No key configured: the server is open (only allowed on loopback). */
  get open(): boolean {
    return this.digests.length === 0;
  }

  matches(candidate: string | undefined): boolean {
    const given = digest(candidate ?? '');
    let ok = 0;
    for (const known of this.digests) ok |= timingSafeEqual(given, known) ? 1 : 0;
    return ok === 1 && candidate !== undefined;
  }

  /** Throws a 401 naming the header when the request has no valid key. */
  check(headers: Record<string, string | string[] | undefined>): void {
    if (this.open) return;
    const key = requestKey(headers);
    if (key === undefined || key === '') {
      throw new UserError(
        'unauthenticated',
        'x-goog-api-key: missing API key; send it in the x-goog-api-key header or as Authorization: Bearer <key>',
        { details: { field: 'x-goog-api-key' } },
      );
    }
    if (!this.matches(key)) {
      const field = headers['x-goog-api-key'] ? 'x-goog-api-key' : 'authorization';
      throw new UserError('unauthenticated', `${field}: API key not valid`, {
        details: { field },
      });
    }
  }
}
