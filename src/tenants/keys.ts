import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../errors/index.js';
import { DEFAULT_TENANT_QUOTAS, type Caller, type Role, type TenantQuotas } from './tenant.js';

/** One configured key: only its SHA-256 digest is kept, never the key itself. */
export interface TenantKey {
  name: string;
  role: Role;
  /** SHA-256 of the key's UTF-8 bytes. */
  digest: Buffer;
  quotas: TenantQuotas;
}

/** SHA-256 of a key, as the keys file's `sha256` field holds it (hex). */
export const keyDigest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

const FIELD = '--api-keys-file';

/** `label` is where the message says the key is (a keys file's entry names the file too). */
function checkKeyText(key: string, field: string, label = field): void {
  if (/\s/.test(key) || key.length < 8) {
    throw new UserError(
      'invalid_argument',
      `${label}: API keys must be at least 8 characters with no spaces`,
      { details: { field } },
    );
  }
}

/**
 * A plain key (HOOKBOX_API_KEYS, HOOKBOX_ADMIN_KEYS, or a line of a plain keys file) is a tenant of
 * its own; HOOKBOX_ADMIN_KEYS makes it an admin (docs/tenants.md, "Keys and roles").
 */
function plainKey(key: string, field: string, role: Role = 'tenant'): TenantKey {
  checkKeyText(key, field);
  return { ...tenantOfPlainKey(key), role };
}

/** The name of a plain key's tenant: `key-` and its digest's first 8 hex digits (docs/tenants.md). */
export const plainTenantName = (digest: Buffer): string =>
  `key-${digest.toString('hex').slice(0, 8)}`;

/** The tenant a plain key stands for: named `key-` and its digest's first 8 hex digits (docs/tenants.md). */
export function tenantOfPlainKey(key: string): TenantKey {
  const digest = keyDigest(key);
  return {
    name: plainTenantName(digest),
    role: 'tenant',
    digest,
    quotas: DEFAULT_TENANT_QUOTAS,
  };
}

const quotasSchema = z
  .strictObject({
    environments: z.number().int().min(0),
    interactions: z.number().int().min(0),
    pooled_per_minute: z.number().int().min(0),
    requests_per_second: z.number().positive(),
    disk_mb: z.number().int().min(0),
  })
  .partial();

const entrySchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" or "-", at most 64'),
    key: z.string().optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, '64 hex digits (the SHA-256 of the key)')
      .optional(),
    role: z.enum(['tenant', 'admin']).default('tenant'),
    quotas: quotasSchema.optional(),
  })
  .refine((entry) => (entry.key === undefined) !== (entry.sha256 === undefined), {
    message: 'give exactly one of "key" and "sha256"',
  });

const listSchema = z.array(entrySchema).min(1);
const fileSchema = z.strictObject({ keys: listSchema });

/** Whether a keys file is the structured form (YAML or JSON) rather than one key per line. */
function isStructured(text: string): boolean {
  const meaningful = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const first = meaningful[0] ?? '';
  return /^[[{]/.test(first) || /^keys\s*:/.test(first) || /^-\s/.test(first);
}

function structuredKeys(text: string, file: string): TenantKey[] {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new UserError(
      'invalid_argument',
      `${FIELD}: ${file} is neither one key per line nor valid YAML/JSON (${(error as Error).message.split('\n')[0]})`,
      { details: { field: FIELD } },
    );
  }
  // A bare list is the `keys` list (paths in messages are the same either way).
  const parsed = fileSchema.safeParse(Array.isArray(data) ? { keys: data } : data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('')
      .replace(/^\./, '');
    throw new UserError(
      'invalid_argument',
      `${FIELD}: ${file}: ${path || '(top level)'}: ${issue.message}`,
      { details: { field: `${FIELD}:${path}` } },
    );
  }
  const entries = parsed.data.keys;
  const roles = new Map<string, Role>();
  return entries.map((entry, index) => {
    // Messages read as the parse errors above do: `--api-keys-file: FILE: keys[i].field: …`.
    const at = `${FIELD}:keys[${index}]`;
    const said = `${FIELD}: ${file}: keys[${index}]`;
    if (entry.key !== undefined) checkKeyText(entry.key, `${at}.key`, `${said}.key`);
    const known = roles.get(entry.name);
    if (known !== undefined && known !== entry.role) {
      throw new UserError(
        'invalid_argument',
        `${said}.role: tenant ${entry.name} is listed with two roles; its keys must share one`,
        { details: { field: `${at}.role` } },
      );
    }
    roles.set(entry.name, entry.role);
    const q = entry.quotas ?? {};
    return {
      name: entry.name,
      role: entry.role,
      digest:
        entry.key !== undefined ? keyDigest(entry.key) : Buffer.from(entry.sha256 ?? '', 'hex'),
      quotas: {
        environments: q.environments ?? DEFAULT_TENANT_QUOTAS.environments,
        interactions: q.interactions ?? DEFAULT_TENANT_QUOTAS.interactions,
        pooledPerMinute: q.pooled_per_minute ?? DEFAULT_TENANT_QUOTAS.pooledPerMinute,
        requestsPerSecond: q.requests_per_second ?? DEFAULT_TENANT_QUOTAS.requestsPerSecond,
        diskMb: q.disk_mb ?? DEFAULT_TENANT_QUOTAS.diskMb,
      },
    };
  });
}

/**
 * The configured keys: `HOOKBOX_ADMIN_KEYS` (comma-separated; each key an admin of its own),
 * `HOOKBOX_API_KEYS` (comma-separated; each key its own tenant) and
 * `--api-keys-file`, either one key per line (`#` comments) or the structured form (YAML or JSON:
 * `keys: [{name, key | sha256, role, quotas}]`, docs/tenants.md).
 */
export function loadTenantKeys(options: {
  env?: Record<string, string | undefined>;
  file?: string;
}): TenantKey[] {
  const keys: TenantKey[] = [];
  const env = options.env ?? process.env;
  const listed = (variable: string) =>
    (env[variable] ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== '');
  const admins = listed('HOOKBOX_ADMIN_KEYS');
  for (const key of admins) keys.push(plainKey(key, 'HOOKBOX_ADMIN_KEYS', 'admin'));
  for (const key of listed('HOOKBOX_API_KEYS')) {
    if (admins.includes(key)) {
      throw new UserError(
        'invalid_argument',
        'HOOKBOX_API_KEYS: a key is also in HOOKBOX_ADMIN_KEYS; give each key once, in the list of its role',
        { details: { field: 'HOOKBOX_API_KEYS' } },
      );
    }
    keys.push(plainKey(key, 'HOOKBOX_API_KEYS'));
  }
  if (options.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.file, 'utf8');
    } catch (error) {
      throw new UserError(
        'invalid_argument',
        `${FIELD}: cannot read ${options.file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        { details: { field: FIELD } },
      );
    }
    if (isStructured(text)) keys.push(...structuredKeys(text, options.file));
    else {
      const lines = text.split(/\r?\n/).map((line) => line.trim());
      const fileKeys = lines.filter((line) => line !== '' && !line.startsWith('#'));
      if (fileKeys.length === 0) {
        throw new UserError('invalid_argument', `${FIELD}: ${options.file} holds no key`, {
          details: { field: FIELD },
        });
      }
      keys.push(...fileKeys.map((key) => plainKey(key, FIELD)));
    }
  }
  // The same key twice is one key (the first entry wins).
  const seen = new Set<string>();
  return keys.filter((key) => {
    const hex = key.digest.toString('hex');
    if (seen.has(hex)) return false;
    seen.add(hex);
    return true;
  });
}

/** The key a request carries: `x-goog-api-key`, or `Authorization: Bearer <key>`. */
export function requestKey(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const header = headers['x-goog-api-key'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct) return direct.trim();
  const authorization = headers.authorization;
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
  return match?.[1]?.trim();
}

/**
 * Finds the tenant of a request's key in constant time: the key's digest is compared with every
 * configured digest (no early exit, so neither which key matched nor the key's length leaks).
 */
export class KeyTable {
  constructor(private readonly keys: readonly TenantKey[]) {}

  /** No key configured: the server is open (only allowed on loopback). */
  get open(): boolean {
    return this.keys.length === 0;
  }

  get size(): number {
    return this.keys.length;
  }

  /** The key's tenant, or undefined. */
  find(candidate: string | undefined): TenantKey | undefined {
    const given = keyDigest(candidate ?? '');
    let found = -1;
    this.keys.forEach((key, index) => {
      const same = timingSafeEqual(given, key.digest);
      found = same ? index : found;
    });
    return candidate === undefined || found < 0 ? undefined : this.keys[found];
  }

  /** The caller a request acts for; throws a 401 naming the header without a valid key. */
  identify(headers: Record<string, string | string[] | undefined>): Caller | undefined {
    if (this.open) return undefined;
    const key = requestKey(headers);
    if (key === undefined || key === '') {
      throw new UserError(
        'unauthenticated',
        'x-goog-api-key: missing API key; send it in the x-goog-api-key header or as Authorization: Bearer <key>',
        { details: { field: 'x-goog-api-key' } },
      );
    }
    const match = this.find(key);
    if (!match) {
      const field = headers['x-goog-api-key'] ? 'x-goog-api-key' : 'authorization';
      throw new UserError('unauthenticated', `${field}: API key not valid`, {
        details: { field },
      });
    }
    // The same key as a plain key had another tenant name: what it made then stays its own.
    const plain = plainTenantName(match.digest);
    return {
      tenant: match.name,
      role: match.role,
      quotas: match.quotas,
      ...(plain !== match.name ? { formerTenants: [plain] } : {}),
    };
  }
}
