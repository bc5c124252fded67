import { isIP } from 'node:net';
import { UserError } from '../errors/index.js';

/** The host name of a `Host` header: lower-cased, without the port or IPv6 brackets. */
export function hostNameOf(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('['))
    return value.slice(1, value.indexOf(']') >= 0 ? value.indexOf(']') : undefined);
  const colon = value.lastIndexOf(':');
  return colon >= 0 && value.indexOf(':') === colon ? value.slice(0, colon) : value;
}

/** Host names that can only mean this machine: `localhost` (and `*.localhost`), 127/8 and ::1. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || /^::ffff:127\./.test(name);
  return false;
}

/**
 * Which `Host` headers a server answers (docs/tenants.md, "Client limits"). A server with no key
 * answers only loopback names, so a web page that rebinds its own DNS name to 127.0.0.1 cannot drive
 * it from the user's browser; `--allowed-hosts` adds names (and, with keys, is the whole list).
 */
export class AllowedHosts {
  private readonly names: Set<string>;

  constructor(
    names: readonly string[],
    private readonly loopbackOnly: boolean,
  ) {
    this.names = new Set(names.map((name) => hostNameOf(name)));
  }

  /** Whether any check applies. */
  get active(): boolean {
    return this.loopbackOnly || this.names.size > 0;
  }

  allows(header: string | undefined): boolean {
    if (!this.active) return true;
    if (header === undefined || header === '') return false;
    const name = hostNameOf(header);
    if (this.names.has(name)) return true;
    return this.loopbackOnly && isLoopbackName(name);
  }

  /** Throws a 403 naming the header when the request's `Host` is not one of the allowed. */
  check(header: string | undefined): void {
    if (this.allows(header)) return;
    throw new UserError(
      'permission_denied',
      `host: ${JSON.stringify(header ?? '')} is not a host name this server answers to${this.loopbackOnly ? ' (with no API key, only localhost, 127.0.0.1 and [::1]; add names with --allowed-hosts)' : ' (see --allowed-hosts)'}`,
      { details: { field: 'host' } },
    );
  }
}
