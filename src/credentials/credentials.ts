// Stored credentials (docs/credentials.md): made, listed, deleted, and opened only for the egress proxy.
import { z } from 'zod';
import { describeIssues } from '../config/zod-issues.js';
import { UserError } from '../errors/index.js';
import { newCredentialId } from '../environments/ids.js';
import { headersSchema } from '../network/allowlist.js';
import type { CredentialRow, CredentialRows } from './rows.js';
import { SECRET_KEY_VARIABLE, seal, secretKeyOf, unseal } from './secret-key.js';

/** Documented limits of a credential (docs/credentials.md). */
export const CREDENTIAL_LIMITS = {
  /** Characters in a name. */
  nameChars: 128,
  /** Bytes in a value (it goes into a header). */
  valueBytes: 8 * 1024,
} as const;

/** Where `{{value}}` in a header template is replaced by the credential's value. */
export const VALUE_MARK = '{{value}}';

/** A credential as every GET shows it: never its value nor its header values. */
export interface Credential {
  id: string;
  object: 'credential';
  name: string;
  created: string;
  /** Names of the headers it adds to hook requests (values never shown). */
  header_names: string[];
  /** Whether it holds a value (usable as an environment-variable placeholder). */
  has_value: boolean;
  /** The tenant that made it (docs/tenants.md); null for the library's. */
  tenant: string | null;
}

/** What a credential opens to, for the egress proxy only. */
export interface CredentialSecret {
  value?: string;
  /** The headers with `{{value}}` filled in. */
  headers: Record<string, string>;
}

const inputSchema = z
  .strictObject(
    {
      name: z
        .string({ error: 'must be a string' })
        .min(1, { error: 'must not be empty' })
        .max(CREDENTIAL_LIMITS.nameChars, {
          error: `must be at most ${CREDENTIAL_LIMITS.nameChars} characters`,
        }),
      value: z
        .string({ error: 'must be a string' })
        .min(1, { error: 'must not be empty' })
        .refine((value) => !/[\r\n\0]/.test(value), { error: 'must not hold CR, LF or NUL' })
        .refine((value) => Buffer.byteLength(value) <= CREDENTIAL_LIMITS.valueBytes, {
          error: `must be at most ${CREDENTIAL_LIMITS.valueBytes} bytes`,
        })
        .optional(),
      headers: headersSchema.optional(),
    },
    { error: 'must be an object {"name", "value"?, "headers"?}' },
  )
  .superRefine((input, context) => {
    if (
      input.value === undefined &&
      (input.headers === undefined || !Object.keys(input.headers).length)
    )
      context.addIssue({
        code: 'custom',
        message: 'give "value", "headers" or both',
        path: ['value'],
      });
    if (input.value === undefined)
      for (const [name, template] of Object.entries(input.headers ?? {}))
        if (template.includes(VALUE_MARK))
          context.addIssue({
            code: 'custom',
            message: `uses ${VALUE_MARK} but the credential has no "value"`,
            path: ['headers', name],
          });
  });

export type CredentialInput = z.input<typeof inputSchema>;

function viewOf(row: CredentialRow): Credential {
  return {
    id: row.id,
    object: 'credential',
    name: row.name,
    created: row.created,
    header_names: [...row.header_names],
    has_value: row.has_value,
    tenant: row.tenant,
  };
}

/** What a credential is sealed against: its id and tenant, so a row's secret opens only there. */
const contextOf = (row: Pick<CredentialRow, 'id' | 'tenant'>) => `${row.id}\n${row.tenant ?? ''}`;

/**
 * A controller's credentials. Values are sealed with AES-256-GCM under the key of
 * `HOOKBOX_SECRET_KEY` (read at each use, so a server started without it refuses clearly) before
 * they reach the rows; no method but {@link open} ever returns them.
 */
export class Credentials {
  constructor(
    private readonly rows: CredentialRows,
    /** The key's text. @default process.env.HOOKBOX_SECRET_KEY, read at each use */
    private readonly keyText: () => string | undefined = () => process.env[SECRET_KEY_VARIABLE],
  ) {}

  /** Stores a credential for `tenant`; bad input is a UserError naming the field and the rule. */
  async create(input: unknown, tenant: string | null, field = 'body'): Promise<Credential> {
    const key = secretKeyOf(this.keyText());
    const parsed = inputSchema.safeParse(input);
    if (!parsed.success) {
      const problem = describeIssues(parsed.error.issues)[0]!;
      const at = problem.path === '(top level)' ? field : `${field}.${problem.path}`;
      throw new UserError('invalid_argument', `${at}: ${problem.message}`, {
        details: { field: at },
      });
    }
    const { name, value, headers } = parsed.data;
    const id = newCredentialId();
    const secret = JSON.stringify({
      ...(value !== undefined ? { value } : {}),
      headers: headers ?? {},
    });
    const row: CredentialRow = {
      id,
      tenant,
      name,
      header_names: Object.keys(headers ?? {}),
      has_value: value !== undefined,
      created: new Date().toISOString(),
      secret: seal(key, secret, contextOf({ id, tenant })),
    };
    await this.rows.save(row);
    return viewOf(row);
  }

  /** Every credential (the caller filters by tenant), oldest first, without values. */
  async list(): Promise<Credential[]> {
    return (await this.rows.list()).map(viewOf);
  }

  /** One credential without its value, or undefined. */
  async get(id: string): Promise<Credential | undefined> {
    const row = await this.rows.get(id);
    return row ? viewOf(row) : undefined;
  }

  /** Removes one; true when it existed. Environments made with it keep what they resolved. */
  delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  /**
   * Opens a credential for an environment of `tenant` (the proxy's use only). A missing id, or
   * another tenant's, is the same 400 naming `field`: ids must not be probeable.
   */
  async open(id: string, tenant: string | null, field: string): Promise<CredentialSecret> {
    const row = await this.rows.get(id);
    if (!row || row.tenant !== tenant)
      throw new UserError('invalid_argument', `${field}: no credential ${JSON.stringify(id)}`, {
        details: { field },
      });
    const key = secretKeyOf(this.keyText());
    const opened = JSON.parse(unseal(key, row.secret, contextOf(row), `credential ${row.id}`)) as {
      value?: string;
      headers: Record<string, string>;
    };
    const headers: Record<string, string> = {};
    for (const [name, template] of Object.entries(opened.headers))
      headers[name] =
        opened.value === undefined ? template : template.split(VALUE_MARK).join(opened.value);
    return { ...(opened.value !== undefined ? { value: opened.value } : {}), headers };
  }
}
