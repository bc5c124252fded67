import { isIP } from 'node:net';
import { UserError } from '../errors/index.js';

// The API runs code: without a key it listens on loopback only (docs/tenants.md, No key).

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
      `--host ${host}: refusing to listen beyond loopback with no API key; set HOOKBOX_API_KEYS, HOOKBOX_ADMIN_KEYS or --api-keys-file (without a key, hookbox serve only listens on 127.0.0.1 or ::1)`,
      { details: { field: '--host' } },
    );
  }
}
