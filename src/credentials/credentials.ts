// Stored credentials (docs/credentials.md): made, listed, deleted, and opened only for the egress proxy.
import { z } from 'zod';
import { describeIssues } from '../errors/zod-issues.js';
import { UserError } from '../errors/index.js';
import { newCredentialId } from '../ids.js';
import { headersSchema } from '../network/allowlist.js';
import type { CredentialRow, CredentialRows } from './rows.js';
import {
  applySdkUpdate,
  parseSdkCredential,
  type SdkCredentialConfig,
  type SdkCredentialSecret,
  type SdkCredentialType,
} from './sdk-credential-input.js';
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
  /** The Gemini SDKs' fields, for a credential of their types (docs/credentials.md). */
  type?: SdkCredentialType;
  status?: 'active';
  create_time?: string;
  update_time?: string;
  injection_location?: string[];
  trusted_domains?: string[];
  header_name?: string;
  prefix?: string;
  client_id?: string;
  token_url?: string;
  scopes?: string[];
}

/** What a credential opens to, for the egress proxy only. */
export interface CredentialSecret {
  value?: string;
  /** The headers with `{{value}}` filled in. */
  headers: Record<string, string>;
  /** An `environment_variable` credential's domains: its value goes nowhere else. */
  trustedDomains?: string[];
  /** An `oauth2` credential: what the proxy trades for access tokens (credentials/oauth2-tokens.ts). */
  oauth2?: OAuth2Grant;
}

/** An `oauth2` credential opened: the refresh grant the proxy makes at `token_url`. */
export interface OAuth2Grant {
  credential: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  scopes: string[];
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

/**
 * Where a credential's row is kept: hookbox's own `cred_…` ids are global; an id a client chose
 * (the SDKs' credentials) is its tenant's, so two tenants may both have a `github` (docs/tenants.md).
 */
export function rowIdOf(id: string, tenant: string | null): string {
  return id.startsWith('cred_') ? id : `${id}@${tenant ?? ''}`;
}

/** The id a client knows a row by. */
const publicIdOf = (row: Pick<CredentialRow, 'id'>) => row.id.split('@')[0]!;

function viewOf(row: CredentialRow): Credential {
  const config = row.config;
  const { type, updated, ...settings } = config ?? {};
  return {
    id: publicIdOf(row),
    object: 'credential',
    name: row.name,
    created: row.created,
    header_names: [...row.header_names],
    has_value: row.has_value,
    tenant: row.tenant,
    ...(config
      ? {
          type,
          status: 'active' as const,
          create_time: row.created,
          update_time: updated,
          ...settings,
        }
      : {}),
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

  /**
   * Stores a credential for `tenant`: hookbox's `{name, value?, headers?}`, or the SDKs' `{id,
   * type, …}`; bad input is a UserError naming the field and the rule.
   */
  async create(input: unknown, tenant: string | null, field = 'body'): Promise<Credential> {
    const key = secretKeyOf(this.keyText());
    if (typeof input === 'object' && input !== null && 'type' in input) {
      const made = parseSdkCredential(input, field);
      const id = rowIdOf(made.id, tenant);
      if (await this.rows.get(id))
        throw new UserError(
          'conflict',
          `${field}.id: credential ${JSON.stringify(made.id)} exists`,
          {
            details: { field: `${field}.id` },
          },
        );
      const row = this.sdkRow(key, id, tenant, new Date().toISOString(), made);
      await this.rows.save(row);
      return viewOf(row);
    }
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

  private sdkRow(
    key: Buffer,
    id: string,
    tenant: string | null,
    created: string,
    made: { config: SdkCredentialConfig; secret: SdkCredentialSecret },
  ): CredentialRow {
    return {
      id,
      tenant,
      name: publicIdOf({ id }),
      header_names: Object.keys(made.secret.headers),
      has_value: made.secret.value !== undefined,
      created,
      secret: seal(key, JSON.stringify(made.secret), contextOf({ id, tenant })),
      config: made.config,
    };
  }

  /**
   * Updates a credential of the SDKs' types (`PATCH …/credentials/{id}?update_mask=`): the fields
   * the mask names, the others kept. Environments made with it keep what they opened.
   */
  async update(
    id: string,
    tenant: string | null,
    input: unknown,
    mask: string | undefined,
  ): Promise<Credential> {
    const row = await this.rows.get(rowIdOf(id, tenant));
    if (!row)
      throw new UserError('not_found', `id: no credential ${JSON.stringify(id)}`, {
        details: { field: 'id' },
      });
    if (!row.config)
      throw new UserError(
        'invalid_argument',
        `id: ${id} is a {name, value, headers} credential, which cannot be updated; delete it and store a new one`,
        { details: { field: 'id' } },
      );
    const key = secretKeyOf(this.keyText());
    const secret = JSON.parse(
      unseal(key, row.secret, contextOf(row), `credential ${id}`),
    ) as SdkCredentialSecret;
    const next = applySdkUpdate(row.config, secret, input, mask);
    const updated = this.sdkRow(key, row.id, row.tenant, row.created, next);
    await this.rows.save(updated);
    return viewOf(updated);
  }

  /** Every credential (the caller filters by tenant), oldest first, without values. */
  async list(): Promise<Credential[]> {
    return (await this.rows.list()).map(viewOf);
  }

  /**
   * One credential without its value, or undefined: `id` as its tenant knows it. Without a tenant
   * (the library, an admin) the first of that id, whoever's it is.
   */
  async get(id: string, tenant?: string | null): Promise<Credential | undefined> {
    const row =
      tenant !== undefined || id.startsWith('cred_')
        ? await this.rows.get(rowIdOf(id, tenant ?? null))
        : (await this.rows.list()).find((candidate) => publicIdOf(candidate) === id);
    return row ? viewOf(row) : undefined;
  }

  /** Removes one (`id` as `tenant` knows it); true when it existed. Live environments keep theirs. */
  delete(id: string, tenant: string | null = null): Promise<boolean> {
    return this.rows.delete(rowIdOf(id, tenant));
  }

  /**
   * Opens a credential for an environment of `tenant` (the proxy's use only). A missing id, or
   * another tenant's, is the same 400 naming `field`: ids must not be probeable.
   */
  async open(id: string, tenant: string | null, field: string): Promise<CredentialSecret> {
    const row = await this.rows.get(rowIdOf(id, tenant));
    if (!row || row.tenant !== tenant)
      throw new UserError('invalid_argument', `${field}: no credential ${JSON.stringify(id)}`, {
        details: { field },
      });
    const key = secretKeyOf(this.keyText());
    const opened = JSON.parse(
      unseal(key, row.secret, contextOf(row), `credential ${id}`),
    ) as SdkCredentialSecret;
    const headers: Record<string, string> = {};
    for (const [name, template] of Object.entries(opened.headers))
      headers[name] =
        opened.value === undefined ? template : template.split(VALUE_MARK).join(opened.value);
    const config = row.config;
    return {
      ...(opened.value !== undefined ? { value: opened.value } : {}),
      headers,
      ...(config?.trusted_domains ? { trustedDomains: config.trusted_domains } : {}),
      ...(opened.oauth2 && config
        ? {
            oauth2: {
              credential: id,
              tokenUrl: config.token_url!,
              clientId: config.client_id!,
              clientSecret: opened.oauth2.client_secret,
              refreshToken: opened.oauth2.refresh_token,
              scopes: config.scopes ?? [],
            },
          }
        : {}),
    };
  }
}
