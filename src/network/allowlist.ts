import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { closestKey } from '../errors/zod-issues.js';
import { UserError } from '../errors/index.js';
import { CREDENTIAL_ID_PATTERN } from '../ids.js';
import { sameAddress } from './addresses.js';

/**
 * One allowlist entry (docs/contract.md §7): a domain, and headers the proxy adds to hook requests
 * to it, given inline (`transform`) or as a stored credential (`credential`, docs/credentials.md).
 */
export interface AllowlistEntry {
  /** `api.example.com` (exact), `*.example.com` (any subdomain, not the root), `*` (any name), or an IP address. */
  domain: string;
  /** Headers added on the wire to `http` hook requests to this domain; never seen in the sandbox. */
  transform?: Record<string, string>;
  /**
   * A stored credential's id (`cred_…`): its headers are added like `transform` (which the same
   * entry may not also have), and environment-variable placeholders of it resolve for this domain.
   */
  credential?: string;
  /**
   * Set by the controller when it resolves `credential`, never by callers: placeholder token →
   * the credential's value, swapped into request headers to this domain (docs/credentials.md).
   */
  placeholders?: Record<string, string>;
  /**
   * Set by the controller for an `oauth2` credential, never by callers: its access token, which the
   * proxy puts in hook requests' `Authorization` and in place of these placeholder tokens.
   */
  oauth2?: { accessToken: () => Promise<string>; placeholders: string[] };
}

/** An environment's network: `{allowlist: [...]}`, or `"disabled"` (the default: no network). */
export type NetworkOptions = { allowlist: AllowlistEntry[] } | 'disabled';

export const ALLOWLIST_LIMITS = {
  entries: 256,
  transformHeaders: 32,
  headerValueBytes: 8 * 1024,
} as const;

/** Headers the proxy owns or that would change the framing of a request; a transform may not set them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** A host name in lower-case ASCII (punycode), without a trailing dot; undefined if it is not one. */
export function normalizeHostName(name: string): string | undefined {
  const trimmed = name.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253) return undefined;
  const ascii = /^[\x21-\x7e]+$/.test(trimmed) ? trimmed.toLowerCase() : domainToASCII(trimmed);
  if (!ascii) return undefined;
  return ascii.split('.').every((label) => LABEL.test(label)) ? ascii : undefined;
}

type Pattern =
  | { kind: 'any' }
  | { kind: 'exact'; name: string }
  | { kind: 'suffix'; suffix: string }
  | { kind: 'ip'; address: string };

function patternOf(domain: string): Pattern | string {
  const text = domain.trim();
  if (text === '*') return { kind: 'any' };
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(bare)) return { kind: 'ip', address: bare };
  if (text.startsWith('*.')) {
    const suffix = normalizeHostName(text.slice(2));
    if (!suffix || suffix.includes('*')) return 'a wildcard must be "*" or "*.<domain>"';
    return { kind: 'suffix', suffix };
  }
  if (text.includes('*'))
    return 'a wildcard must be the whole domain ("*") or its first label ("*.example.com")';
  if (/[/:?#@\s]/.test(text))
    return 'must be a bare domain name or IP address, without scheme, port or path';
  const name = normalizeHostName(text);
  return name ? { kind: 'exact', name } : 'is not a valid domain name';
}

/** Header name → value, as `transform` and a credential's `headers` take them. */
export const headersSchema = z
  .record(z.string(), z.string({ error: 'header values must be strings' }))
  .superRefine((headers, context) => {
    const names = Object.keys(headers);
    if (names.length > ALLOWLIST_LIMITS.transformHeaders)
      context.addIssue({
        code: 'custom',
        message: `at most ${ALLOWLIST_LIMITS.transformHeaders} headers`,
      });
    const seen = new Set<string>();
    for (const name of names) {
      const lower = name.toLowerCase();
      const value = headers[name]!;
      const at = { path: [name] };
      if (!HEADER_NAME.test(name))
        context.addIssue({ code: 'custom', message: 'not a valid HTTP header name', ...at });
      else if (
        RESERVED_HEADERS.has(lower) ||
        lower.startsWith('proxy-') ||
        lower.startsWith('x-hookbox-')
      )
        context.addIssue({
          code: 'custom',
          message: `${name} cannot be set by a transform (the proxy owns it)`,
          ...at,
        });
      else if (seen.has(lower))
        context.addIssue({ code: 'custom', message: `${name} is given twice`, ...at });
      if (/[\r\n\0]/.test(value))
        context.addIssue({
          code: 'custom',
          message: 'a header value cannot hold CR, LF or NUL',
          ...at,
        });
      if (Buffer.byteLength(value) > ALLOWLIST_LIMITS.headerValueBytes)
        context.addIssue({
          code: 'custom',
          message: `a header value is at most ${ALLOWLIST_LIMITS.headerValueBytes} bytes`,
          ...at,
        });
      seen.add(lower);
    }
  });

const entrySchema = z.strictObject(
  {
    domain: z.string({ error: 'domain must be a string' }),
    transform: headersSchema.optional(),
    credential: z
      .string({
        error:
          'must be a credential id ("cred_…" or the id it was created with, docs/credentials.md)',
      })
      .regex(CREDENTIAL_ID_PATTERN, {
        error:
          'must be a credential id ("cred_…" or the id it was created with, docs/credentials.md)',
      })
      .optional(),
  },
  { error: 'an allowlist entry must be an object {"domain", "transform"? or "credential"?}' },
);

const networkObjectSchema = z.strictObject(
  {
    allowlist: z
      .array(entrySchema, {
        error: 'allowlist must be an array of {"domain", "transform"? or "credential"?}',
      })
      .max(ALLOWLIST_LIMITS.entries, {
        error: `allowlist holds at most ${ALLOWLIST_LIMITS.entries} entries`,
      }),
  },
  { error: 'network must be "disabled" or {"allowlist": [...]}' },
);

const networkSchema = z.union([z.literal('disabled'), networkObjectSchema], {
  error: 'network must be "disabled" or {"allowlist": [{"domain", "transform"?}, ...]}',
});

/**
 * Checks an environment's `network` option. Returns the allowlist (undefined for none: no network
 * at all, also for `"disabled"` and an empty allowlist). Every problem is a UserError naming the
 * field, e.g. `network.allowlist[1].domain`.
 */
export function parseNetworkOptions(raw: unknown, field = 'network'): Allowlist | undefined {
  if (raw === undefined) return undefined;
  // An object is meant as the allowlist form: its own issues (not the union's) name the field.
  const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const parsed = (isObject ? networkObjectSchema : networkSchema).safeParse(raw);
  if (!parsed.success) {
    // A misspelt key also leaves its real key missing: the misspelling is the problem to name,
    // with the key it resembles, as `environment.network` does (src/interactions/request.ts).
    const issue =
      parsed.error.issues.find((found) => found.code === 'unrecognized_keys') ??
      parsed.error.issues[0]!;
    const path = issue.path.map((key) =>
      typeof key === 'number' ? `[${key}]` : `.${String(key)}`,
    );
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') {
      const key = (issue as { keys?: string[] }).keys?.[0] ?? '';
      const known =
        typeof issue.path.at(-1) === 'number'
          ? ['domain', 'transform', 'credential']
          : ['allowlist'];
      const near = closestKey(key, known);
      path.push(`.${key}`);
      message = `unknown field ${JSON.stringify(key)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}; known fields: ${known.join(', ')}`;
    }
    const at = `${field}${path.join('')}`;
    throw new UserError('invalid_argument', `${at}: ${message}`, { details: { field: at } });
  }
  if (parsed.data === 'disabled' || parsed.data.allowlist.length === 0) return undefined;
  // A caller's entry names its headers one way; the controller, resolving a credential, sets
  // both (src/credentials/environment-credentials.ts), so this is a rule of the input only.
  parsed.data.allowlist.forEach((entry, index) => {
    const at = `${field}.allowlist[${index}].credential`;
    if (entry.transform !== undefined && entry.credential !== undefined)
      throw new UserError(
        'invalid_argument',
        `${at}: give "transform" or "credential", not both (put every header in the credential)`,
        { details: { field: at } },
      );
  });
  return new Allowlist(parsed.data.allowlist, `${field}.allowlist`);
}

interface CompiledEntry {
  entry: AllowlistEntry;
  pattern: Pattern;
}

/**
 * A validated allowlist. Matching picks the most specific entry (an exact name, then the longest
 * wildcard suffix, then `*`), whatever the order of the entries, so a `*` catch-all never hides the
 * `transform` of the entry that names the domain. `*` and wildcards match names only: a raw IP
 * target needs an entry that names the address.
 */
export class Allowlist {
  private readonly compiled: CompiledEntry[];

  constructor(entries: AllowlistEntry[], field = 'allowlist') {
    const seen = new Map<string, number>();
    this.compiled = entries.map((entry, index) => {
      const at = `${field}[${index}].domain`;
      const pattern = patternOf(entry.domain);
      if (typeof pattern === 'string')
        throw new UserError(
          'invalid_argument',
          `${at}: ${JSON.stringify(entry.domain)} ${pattern}`,
          {
            details: { field: at },
          },
        );
      const key =
        pattern.kind === 'any'
          ? '*'
          : pattern.kind === 'exact'
            ? pattern.name
            : pattern.kind === 'suffix'
              ? `*.${pattern.suffix}`
              : pattern.address;
      const earlier = seen.get(key);
      if (earlier !== undefined)
        throw new UserError(
          'invalid_argument',
          `${at}: ${JSON.stringify(entry.domain)} is already allowlisted by ${field}[${earlier}]; give each domain once`,
          { details: { field: at } },
        );
      seen.set(key, index);
      if (pattern.kind === 'any' && entry.credential !== undefined)
        throw new UserError(
          'invalid_argument',
          `${field}[${index}].credential: a credential on "*" would send it to every domain; name the domain instead`,
          { details: { field: `${field}[${index}].credential` } },
        );
      if (pattern.kind === 'any' && entry.transform && Object.keys(entry.transform).length > 0)
        throw new UserError(
          'invalid_argument',
          `${field}[${index}].transform: a transform on "*" would send its headers to every domain; name the domain instead`,
          { details: { field: `${field}[${index}].transform` } },
        );
      return {
        entry: {
          domain: entry.domain,
          ...(entry.transform ? { transform: { ...entry.transform } } : {}),
          ...(entry.credential !== undefined ? { credential: entry.credential } : {}),
          ...(entry.placeholders ? { placeholders: { ...entry.placeholders } } : {}),
          ...(entry.oauth2 ? { oauth2: entry.oauth2 } : {}),
        },
        pattern,
      };
    });
  }

  /** The entries as given (transform values included: keep this object in the controller). */
  get entries(): AllowlistEntry[] {
    return this.compiled.map(({ entry }) => entry);
  }

  /** The entry that lets `host` through (a name or an IP address), or undefined. */
  match(host: string): AllowlistEntry | undefined {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(bare)) {
      return this.compiled.find(
        ({ pattern }) => pattern.kind === 'ip' && sameAddress(pattern.address, bare),
      )?.entry;
    }
    const name = normalizeHostName(bare);
    if (!name) return undefined;
    let best: { entry: AllowlistEntry; score: number } | undefined;
    for (const { entry, pattern } of this.compiled) {
      let score = -1;
      if (pattern.kind === 'exact' && pattern.name === name) score = Number.MAX_SAFE_INTEGER;
      else if (pattern.kind === 'suffix' && name.endsWith(`.${pattern.suffix}`))
        score = pattern.suffix.length + 1;
      else if (pattern.kind === 'any') score = 0;
      if (score >= 0 && (!best || score > best.score)) best = { entry, score };
    }
    return best?.entry;
  }

  /** The entries without their header values, for logs and records. */
  describe(): { domain: string; transform_headers?: string[]; credential?: string }[] {
    return this.compiled.map(({ entry }) => ({
      domain: entry.domain,
      ...(entry.transform ? { transform_headers: Object.keys(entry.transform) } : {}),
      ...(entry.credential !== undefined ? { credential: entry.credential } : {}),
    }));
  }
}
