// The Gemini SDKs' credential types (docs/credentials.md, "The SDKs' credential types"):
// `environment_variable`, `bearer_token` and `oauth2`, each turned into what hookbox stores: a
// sealed secret (a value, header templates) and a public configuration shown in answers.
import { z } from 'zod';
import { describeIssues, knownKeysOf } from '../errors/zod-issues.js';
import { UserError } from '../errors/index.js';
import { headersSchema } from '../network/allowlist.js';

/** A client-chosen id: lower-case letters, digits and `-` (AIP-122), 1–63 characters. */
export const SDK_CREDENTIAL_ID = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const secretText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .refine((value) => !/[\r\n\0]/.test(value), { error: 'must not hold CR, LF or NUL' })
    .refine((value) => Buffer.byteLength(value) <= max, { error: `must be at most ${max} bytes` });

const locations = z.union([
  z.enum(['header', 'query', 'body']),
  z.array(z.enum(['header', 'query', 'body'])).min(1, { error: 'must name at least one location' }),
]);
const domains = z.array(z.string().min(1, { error: 'must not be empty' }));
const headerName = z
  .string({ error: 'must be a header name' })
  .refine((name) => headersSchema.safeParse({ [name]: 'x' }).success, {
    error: 'must be a header name the proxy may set (not Host, Proxy-*, X-Hookbox-*, …)',
  });
const tokenUrl = z
  .string({ error: 'must be a URL' })
  .refine((url) => /^https?:\/\/[^\s/]+/.test(url), {
    error: 'must be an http:// or https:// URL',
  });

const VALUE_BYTES = 8 * 1024;

const shapes = {
  environment_variable: {
    value: secretText(VALUE_BYTES),
    injection_location: locations,
    trusted_domains: domains.optional(),
  },
  bearer_token: {
    token: secretText(VALUE_BYTES),
    header_name: headerName.optional(),
    prefix: z.string({ error: 'must be a string' }).max(64).optional(),
  },
  oauth2: {
    client_id: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
    client_secret: secretText(VALUE_BYTES),
    refresh_token: secretText(VALUE_BYTES),
    token_url: tokenUrl,
    scopes: z.array(z.string()).optional(),
  },
} as const;

export type SdkCredentialType = keyof typeof shapes;
export const SDK_CREDENTIAL_TYPES = Object.keys(shapes) as SdkCredentialType[];

/** What answers show of a credential of the SDKs' types: never a secret. */
export interface SdkCredentialConfig {
  type: SdkCredentialType;
  updated: string;
  injection_location?: string[];
  trusted_domains?: string[];
  header_name?: string;
  prefix?: string;
  client_id?: string;
  token_url?: string;
  scopes?: string[];
}

/** The sealed part. `oauth2` holds its client secret and refresh token; the proxy trades them. */
export interface SdkCredentialSecret {
  value?: string;
  headers: Record<string, string>;
  oauth2?: { client_secret: string; refresh_token: string };
}

function refuse(field: string, rule: string): never {
  throw new UserError('invalid_argument', `${field}: ${rule}`, { details: { field } });
}

function parse<S extends z.ZodType>(schema: S, input: unknown, prefix: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problem = describeIssues(parsed.error.issues, knownKeysOf(schema))[0]!;
  refuse(problem.path === '(top level)' ? prefix : `${prefix}.${problem.path}`, problem.message);
}

function typeOf(input: unknown, field: string): SdkCredentialType {
  const type = (input as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !(type in shapes))
    refuse(`${field}.type`, `must be one of ${SDK_CREDENTIAL_TYPES.join(', ')}`);
  return type as SdkCredentialType;
}

/** The id, public configuration and secret of a create body (`{id, type, …}`). */
export function parseSdkCredential(
  input: unknown,
  field = 'body',
): { id: string; config: SdkCredentialConfig; secret: SdkCredentialSecret } {
  const type = typeOf(input, field);
  const body = parse(
    z.strictObject({ id: z.string(), type: z.literal(type), ...shapes[type] }),
    input,
    field,
  ) as Record<string, unknown> & { id: string };
  if (!SDK_CREDENTIAL_ID.test(body.id))
    refuse(
      `${field}.id`,
      'must be 1–63 lower-case letters, digits and "-", starting with a letter',
    );
  return { id: body.id, ...assemble(type, body, new Date().toISOString(), field) };
}

/**
 * A credential updated with `body`: the fields `update_mask` names (comma-separated; all the
 * body's fields without it), the others as they were. The type cannot change.
 */
export function applySdkUpdate(
  config: SdkCredentialConfig,
  secret: SdkCredentialSecret,
  input: unknown,
  mask: string | undefined,
): { config: SdkCredentialConfig; secret: SdkCredentialSecret } {
  const field = 'body';
  const type = typeOf(input, field);
  if (type !== config.type)
    refuse(`${field}.type`, `is ${config.type}; a credential's type cannot change`);
  const partial = z
    .strictObject({ type: z.literal(type), ...shapes[type] })
    .partial()
    .required({ type: true });
  const body = parse(partial, input, field) as Record<string, unknown>;
  const known = Object.keys(shapes[type]);
  const fields =
    mask === undefined || mask === ''
      ? Object.keys(body).filter((k) => k !== 'type')
      : mask.split(',').map((k) => k.trim());
  for (const name of fields)
    if (!known.includes(name))
      refuse(
        'update_mask',
        `${JSON.stringify(name)} is not a field of a ${type} credential (known: ${known.join(', ')})`,
      );
  const current = { ...config, ...secret.oauth2, value: secret.value } as Record<string, unknown>;
  if (type === 'bearer_token') current.token = secret.value;
  const merged: Record<string, unknown> = { ...current };
  for (const name of fields) {
    if (body[name] === undefined) delete merged[name];
    else merged[name] = body[name];
  }
  return assemble(type, merged, new Date().toISOString(), field);
}

function assemble(
  type: SdkCredentialType,
  body: Record<string, unknown>,
  updated: string,
  field: string,
): { config: SdkCredentialConfig; secret: SdkCredentialSecret } {
  // Required fields must survive an update too.
  const required = parse(z.object(shapes[type]), body, field) as Record<string, unknown>;
  switch (type) {
    case 'environment_variable': {
      const where = required.injection_location as string | string[];
      const list = typeof where === 'string' ? [where] : where;
      return {
        config: {
          type,
          updated,
          injection_location: list,
          ...(required.trusted_domains
            ? { trusted_domains: required.trusted_domains as string[] }
            : {}),
        },
        secret: { value: required.value as string, headers: {} },
      };
    }
    case 'bearer_token': {
      const header = (required.header_name as string | undefined) ?? 'Authorization';
      const prefix = (required.prefix as string | undefined) ?? 'Bearer';
      return {
        config: { type, updated, header_name: header, prefix },
        secret: {
          value: required.token as string,
          headers: { [header]: prefix === '' ? '{{value}}' : `${prefix} {{value}}` },
        },
      };
    }
    case 'oauth2':
      return {
        config: {
          type,
          updated,
          client_id: required.client_id as string,
          token_url: required.token_url as string,
          ...(required.scopes ? { scopes: required.scopes as string[] } : {}),
        },
        secret: {
          headers: {},
          oauth2: {
            client_secret: required.client_secret as string,
            refresh_token: required.refresh_token as string,
          },
        },
      };
  }
}
