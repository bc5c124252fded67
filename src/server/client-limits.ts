import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How much of the server one client may hold (docs/tenants.md, "Client limits"). */
export interface ClientLimits {
  /**
   * Open connections at most; past it new ones are closed at once. Sized from the process's open-file
   * limit, keeping room for the engine, state and audit-log descriptors.
   * @default the soft RLIMIT_NOFILE minus 512 minus 4 per environment of the ceiling, at least 64
   */
  maxConnections?: number;
  /** Open connections at most from one client address. @default 256 */
  maxConnectionsPerAddress?: number;
  /** Time to receive a request's headers. @default 15000 */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, headers and body. @default 60000 */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. @default 5000 */
  keepAliveTimeoutMs?: number;
}

export const CLIENT_LIMIT_DEFAULTS = {
  maxConnectionsPerAddress: 256,
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
} as const;

/** The soft limit on open files of this process (Linux), or undefined where it cannot be read. */
export function openFileLimit(): number | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(limits);
    if (!match) return undefined;
    return match[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** The default connection ceiling: what the descriptors left for clients allow. */
export function defaultMaxConnections(
  maxEnvironments: number,
  fileLimit = openFileLimit(),
): number {
  const files = fileLimit ?? 1024;
  return Math.max(64, Math.min(100_000, files - 512 - 4 * maxEnvironments));
}

/**
 * Caps connections in all and per client address on a listening server, so slow or idle clients
 * can neither use up the process's file descriptors nor crowd out everyone else: past a cap, a new
 * connection is closed before anything is read from it.
 */
export function guardConnections(
  server: Server,
  limits: { maxConnections: number; maxConnectionsPerAddress: number },
  onRefused: (address: string, why: 'per_address' | 'total') => void = () => {},
): { open(address: string): number } {
  server.maxConnections = limits.maxConnections;
  const perAddress = new Map<string, number>();
  server.on('drop', (data?: { remoteAddress?: string }) =>
    onRefused(data?.remoteAddress ?? 'unknown', 'total'),
  );
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = perAddress.get(address) ?? 0;
    if (count >= limits.maxConnectionsPerAddress) {
      onRefused(address, 'per_address');
      socket.destroy();
      return;
    }
    perAddress.set(address, count + 1);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
  return { open: (address) => perAddress.get(address) ?? 0 };
}
