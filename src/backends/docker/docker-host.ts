import { existsSync } from 'node:fs';

/** The socket an engine listens on when DOCKER_HOST is not set (Docker's default). */
export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/** Where the Docker client goes: DOCKER_HOST's value, or the default socket. */
export interface DockerHost {
  /** `unix:///path` or `tcp://host:port` (as DOCKER_HOST says it, or the default socket). */
  address: string;
  /** The variable's value; undefined when the default is used. */
  variable: string | undefined;
  /** The socket's path, for a `unix://` address. */
  socket: string | undefined;
  /**
   * Whether this is where hookbox may start an engine itself (scripts/ensure-engine.sh starts
   * dockerd on the default socket only): DOCKER_HOST unset, or naming the default socket.
   */
  startable: boolean;
}

/** Reads DOCKER_HOST the way the Docker client (dockerode) does. */
export function dockerHostOf(env: Record<string, string | undefined> = process.env): DockerHost {
  const variable = env.DOCKER_HOST?.trim() || undefined;
  const address = variable ?? `unix://${DEFAULT_DOCKER_SOCKET}`;
  const socket = address.startsWith('unix://') ? address.slice('unix://'.length) : undefined;
  const startable =
    socket !== undefined && [DEFAULT_DOCKER_SOCKET, '/run/docker.sock'].includes(socket);
  return { address, variable, socket, startable };
}

/**
 * One line naming where no engine answered and why, for errors and `hookbox doctor`: the address,
 * the variable that chose it, and a missing socket file.
 */
export function describeNoEngine(host: DockerHost, reason: string): string {
  const where = host.variable
    ? `${host.address} (from DOCKER_HOST)`
    : `${host.address} (the default; DOCKER_HOST is not set)`;
  const missing =
    host.socket !== undefined && !existsSync(host.socket) ? `: no socket at ${host.socket}` : '';
  return `no Docker engine answers at ${where}${missing}${missing ? '' : ` (${reason})`}`;
}
