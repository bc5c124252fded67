// Vetting one egress target: the allowlist, name resolution, the address rules, the hook token.
import { timingSafeEqual } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { refusalFor, type AddressPolicyExtras } from './addresses.js';
import { normalizeHostName, type Allowlist, type AllowlistEntry } from './allowlist.js';
import type { Refusal } from './egress-refusal.js';

/** Resolves a name to all its addresses (default: `dns.lookup` with `all: true`). */
export type Resolver = (name: string) => Promise<string[]>;

export const defaultResolver: Resolver = async (name) =>
  (await dns.lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Name overrides for tests. **Test configuration only**: production controllers leave it unset.
 */
export interface EgressTesting {
  /** Name → addresses, used instead of DNS. The addresses are vetted like any DNS answer. */
  hosts?: Record<string, string[]>;
  /**
   * Name → address, used instead of DNS and exempt from the address rules: the test's own servers
   * run on this machine (loopback), which the proxy otherwise refuses. Still subject to the
   * allowlist; a raw IP target is never exempt.
   */
  trustedUpstreams?: Record<string, string | string[]>;
}

/** What vetting reads from the proxy's options. */
export interface VettingOptions {
  resolve?: Resolver;
  addressPolicy?: AddressPolicyExtras;
  testing?: EgressTesting;
}

export const HOOK_TOKEN_HEADER = 'x-hookbox-hook-token';

/** A target that passed: the allowlist entry that lets it through and its vetted addresses. */
export interface Vetted {
  host: string;
  entry: AllowlistEntry;
  addresses: string[];
}

export function tokenMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `host:port` of a CONNECT request; the host normalised the way a URL parser would. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@\s]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  try {
    const host = new URL(`http://${match[1]}`).hostname;
    return { host, port };
  } catch {
    return undefined;
  }
}

export function withoutBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Allowlist, resolution, address rules: the vetted addresses, or the rule that refuses. */
export async function vetTarget(
  rawHost: string,
  allowlist: Allowlist,
  options: VettingOptions,
): Promise<Vetted | Refusal> {
  const bare = withoutBrackets(rawHost);
  if (isIP(bare)) {
    const entry = allowlist.match(bare);
    if (!entry)
      return {
        status: 403,
        rule: 'raw-ip',
        detail: `${bare} is an IP address; raw IP targets need an allowlist entry that names the address`,
      };
    const refusal = refusalFor(bare, options.addressPolicy);
    if (refusal)
      return { status: 403, rule: refusal.rule, detail: `${bare} is ${refusal.description}` };
    return { host: bare, entry, addresses: [bare] };
  }
  const host = normalizeHostName(bare);
  if (!host)
    return {
      status: 400,
      rule: 'bad-target',
      detail: `${JSON.stringify(bare)} is not a host name`,
    };
  const entry = allowlist.match(host);
  if (!entry)
    return {
      status: 403,
      rule: 'allowlist',
      detail: `${host} is not in this environment's network.allowlist`,
    };
  const own = <T>(map: Record<string, T> | undefined): T | undefined =>
    map && Object.hasOwn(map, host) ? map[host] : undefined;
  const trusted = own(options.testing?.trustedUpstreams);
  if (trusted !== undefined)
    return { host, entry, addresses: Array.isArray(trusted) ? trusted : [trusted] };
  let addresses: string[];
  try {
    addresses = own(options.testing?.hosts) ?? (await (options.resolve ?? defaultResolver)(host));
  } catch (error) {
    return {
      status: 502,
      rule: 'dns',
      detail: `${host} could not be resolved (${(error as { code?: string }).code ?? (error as Error).message})`,
    };
  }
  if (addresses.length === 0)
    return { status: 502, rule: 'dns', detail: `${host} has no addresses` };
  // Every answer must pass: a name that also points inside is refused outright.
  for (const address of addresses) {
    const refusal = refusalFor(address, options.addressPolicy);
    if (refusal)
      return {
        status: 403,
        rule: refusal.rule,
        detail: `${host} resolves to ${address}, ${refusal.description}`,
      };
  }
  return { host, entry, addresses };
}
