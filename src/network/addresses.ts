import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Which addresses the egress proxy never connects to, after a name is resolved (so DNS answers
 * cannot steer it there). Each refusal names its rule; the rule names appear in the proxy's 403
 * answers, its records and docs/network.md.
 */
export type AddressRule =
  | 'unspecified'
  | 'loopback'
  | 'metadata'
  | 'link-local'
  | 'private'
  | 'shared-address-space'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'host-address'
  | 'docker-network';

export interface AddressRefusal {
  rule: AddressRule;
  /** What the address is, for the refusal message: "a loopback address (127.0.0.0/8)". */
  description: string;
}

/** An address as 4 or 16 bytes. */
type Bytes = number[];

function parseV4(text: string): Bytes | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : NaN));
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : undefined;
}

function parseV6(text: string): Bytes | undefined {
  let head = text;
  let tail: Bytes = [];
  // An embedded dotted quad at the end (::ffff:1.2.3.4) is the last 32 bits.
  const lastColon = head.lastIndexOf(':');
  if (head.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(head.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = v4;
    head = head.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  const bytes: Bytes = [];
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Parses an IPv4 or IPv6 address (brackets and a zone id are ignored); undefined if it is none. */
export function addressBytes(address: string): Bytes | undefined {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const kind = isIP(text);
  if (kind === 4) return parseV4(text);
  if (kind === 6) return parseV6(text.toLowerCase());
  return undefined;
}

function sameBytes(x: Bytes | undefined, y: Bytes | undefined): boolean {
  return (
    x !== undefined && y !== undefined && x.length === y.length && x.every((v, i) => v === y[i])
  );
}

/** Whether two texts name the same address (`::1` and `0:0::1`, `[::1]`). */
export function sameAddress(a: string, b: string): boolean {
  return sameBytes(addressBytes(a), addressBytes(b));
}

interface Cidr {
  bytes: Bytes;
  prefix: number;
  text: string;
}

export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText] = text.split('/');
  const bytes = address === undefined ? undefined : addressBytes(address);
  if (!bytes) return undefined;
  const max = bytes.length * 8;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return undefined;
  return { bytes, prefix, text };
}

function inCidr(bytes: Bytes, cidr: Cidr): boolean {
  if (bytes.length !== cidr.bytes.length) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (cidr.bytes[i]! & mask)) return false;
  }
  return true;
}

/** Whether `address` lies in `cidr` (`172.18.0.0/16`); false when either does not parse. */
export function addressInCidr(address: string, cidr: string): boolean {
  const bytes = addressBytes(address);
  const parsed = parseCidr(cidr);
  return bytes !== undefined && parsed !== undefined && inCidr(bytes, parsed);
}

const table = (rows: [string, AddressRule, string][]) =>
  rows.map(([cidr, rule, what]) => ({ cidr: parseCidr(cidr)!, rule, what }));

/** Checked in order: the first row that holds the address names the rule. */
const IPV4_RANGES = table([
  ['169.254.169.254/32', 'metadata', 'a cloud metadata service address'],
  ['169.254.170.2/32', 'metadata', 'a container metadata service address'],
  ['0.0.0.0/8', 'unspecified', 'an unspecified ("this network") address'],
  ['127.0.0.0/8', 'loopback', 'a loopback address'],
  ['169.254.0.0/16', 'link-local', 'a link-local address'],
  ['10.0.0.0/8', 'private', 'a private (RFC 1918) address'],
  ['172.16.0.0/12', 'private', 'a private (RFC 1918) address'],
  ['192.168.0.0/16', 'private', 'a private (RFC 1918) address'],
  ['100.64.0.0/10', 'shared-address-space', 'a carrier-grade NAT (RFC 6598) address'],
  ['192.0.0.0/24', 'reserved', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'reserved', 'a documentation (TEST-NET-1) address'],
  ['198.51.100.0/24', 'reserved', 'a documentation (TEST-NET-2) address'],
  ['203.0.113.0/24', 'reserved', 'a documentation (TEST-NET-3) address'],
  ['198.18.0.0/15', 'reserved', 'a benchmarking address'],
  ['192.88.99.0/24', 'reserved', 'a 6to4 relay anycast address'],
  ['224.0.0.0/4', 'multicast', 'a multicast address'],
  ['240.0.0.0/4', 'reserved', 'a reserved (class E or broadcast) address'],
]);

const IPV6_RANGES = table([
  ['fd00:ec2::254/128', 'metadata', 'a cloud metadata service address'],
  ['::/128', 'unspecified', 'the unspecified address'],
  ['::1/128', 'loopback', 'the loopback address'],
  ['fe80::/10', 'link-local', 'a link-local address'],
  ['fec0::/10', 'private', 'a site-local address'],
  ['fc00::/7', 'unique-local', 'a unique local (private) address'],
  ['ff00::/8', 'multicast', 'a multicast address'],
  ['::/96', 'reserved', 'an IPv4-compatible (deprecated) address'],
  ['64:ff9b:1::/48', 'reserved', 'a local-use NAT64 address'],
  ['100::/64', 'reserved', 'a discard-only address'],
  ['2001::/32', 'reserved', 'a Teredo address'],
  ['2001:2::/48', 'reserved', 'a benchmarking address'],
  ['2001:db8::/32', 'reserved', 'a documentation address'],
]);

const IPV6_LOOPBACK = parseCidr('::1/128')!;

/** IPv6 forms that carry an IPv4 address, which is checked in its place. */
const EMBEDDING = [
  { cidr: parseCidr('::ffff:0:0/96')!, at: 12, what: 'IPv4-mapped' },
  { cidr: parseCidr('64:ff9b::/96')!, at: 12, what: 'NAT64' },
  { cidr: parseCidr('2002::/16')!, at: 2, what: '6to4' },
];

export interface AddressPolicyExtras {
  /** The controller host's own addresses (default: its interfaces, read at each check). */
  hostAddresses?: () => string[];
  /** Further networks to refuse, such as the Docker engine's networks, with the rule to name. */
  blockedNetworks?: { cidr: string; rule: AddressRule; what: string }[];
}

/** Local IPv4 addresses from the kernel's routing table (`/32 host LOCAL` entries). */
function kernelIpv4Addresses(): string[] {
  const out: string[] = [];
  let last: string | undefined;
  for (const line of readFileSync('/proc/net/fib_trie', 'utf8').split('\n')) {
    const leaf = /\|--\s+(\d+\.\d+\.\d+\.\d+)/.exec(line);
    if (leaf) last = leaf[1];
    else if (last && /\/32 host LOCAL/.test(line)) out.push(last);
  }
  return out;
}

/** Local IPv6 addresses (`/proc/net/if_inet6`). */
function kernelIpv6Addresses(): string[] {
  return readFileSync('/proc/net/if_inet6', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((hex) => /^[0-9a-f]{32}$/.test(hex))
    .map((hex) => hex.match(/.{4}/g)!.join(':'));
}

let localCache: { at: number; addresses: string[] } | undefined;

/**
 * Every address of this machine, as the proxy sees them (cached for a second). Node lists only
 * interfaces that are up and running, which leaves out, for one, `docker0` while no container uses
 * the default bridge, although its address is just as local; the kernel's tables (Linux) fill in.
 */
export function localInterfaceAddresses(): string[] {
  const now = Date.now();
  if (localCache && now - localCache.at < 1000) return localCache.addresses;
  const found = new Set(
    Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((entry) => entry.address),
  );
  for (const read of [kernelIpv4Addresses, kernelIpv6Addresses]) {
    try {
      for (const address of read()) found.add(address);
    } catch {
      // not Linux, or no /proc: Node's list is what there is
    }
  }
  localCache = { at: now, addresses: [...found] };
  return localCache.addresses;
}

/**
 * Why the proxy must not connect to `address`, or undefined when it may. Refuses loopback,
 * unspecified, link-local, private (RFC 1918), shared (CGNAT), unique-local, multicast, reserved and
 * documentation ranges, cloud metadata addresses, the controller host's own addresses and any extra
 * networks given (the Docker engine's), also when wrapped in IPv6 (mapped, NAT64, 6to4).
 */
export function refusalFor(
  address: string,
  extras: AddressPolicyExtras = {},
): AddressRefusal | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return { rule: 'reserved', description: 'not an IP address' };
  const hostAddresses = (extras.hostAddresses ?? localInterfaceAddresses)();
  const check = (candidate: Bytes, via: string): AddressRefusal | undefined => {
    const ranges = candidate.length === 4 ? IPV4_RANGES : IPV6_RANGES;
    const first = ranges[0]!;
    // Metadata first: it is also link-local, and the more specific name is the useful one.
    if (inCidr(candidate, first.cidr)) return { rule: first.rule, description: first.what + via };
    // Loopback keeps its own name although it is also the host's.
    const loopback =
      candidate.length === 4 ? candidate[0] === 127 : inCidr(candidate, IPV6_LOOPBACK);
    if (!loopback && hostAddresses.some((own) => sameBytes(addressBytes(own), candidate)))
      return { rule: 'host-address', description: `an address of the controller's host${via}` };
    for (const network of extras.blockedNetworks ?? []) {
      const cidr = parseCidr(network.cidr);
      if (cidr && inCidr(candidate, cidr))
        return { rule: network.rule, description: `${network.what} (${network.cidr})${via}` };
    }
    for (const row of ranges) {
      if (inCidr(candidate, row.cidr))
        return { rule: row.rule, description: `${row.what} (${row.cidr.text})${via}` };
    }
    return undefined;
  };
  if (bytes.length === 16) {
    for (const embedding of EMBEDDING) {
      if (!inCidr(bytes, embedding.cidr)) continue;
      const inner = bytes.slice(embedding.at, embedding.at + 4);
      return check(inner, `, inside the ${embedding.what} address ${address}`);
    }
  }
  return check(bytes, '');
}
