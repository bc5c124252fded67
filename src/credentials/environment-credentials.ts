// An environment's credentials (docs/credentials.md): allowlist references opened, placeholders made and bound.
import { randomBytes } from 'node:crypto';
import type { ToolEnvValue } from '../controller/tool-env.js';
import { UserError } from '../errors/index.js';
import { Allowlist, type AllowlistEntry } from '../network/allowlist.js';
import type { Credentials } from './credentials.js';
import { firstToken, OAuth2Tokens } from './oauth2-tokens.js';

/** What tool code sees instead of a credential's value: this prefix and 32 random hex digits. */
export const PLACEHOLDER_PREFIX = 'hookbox-credential-';

/** One `environment.env` variable that is a credential placeholder. */
export interface CredentialPlaceholder {
  /** The opaque token tool code sees. */
  token: string;
  credential: string;
  /** `env.API_KEY`, for errors. */
  field: string;
}

/**
 * Splits checked `environment.env` into what tool code gets (placeholders replaced by fresh
 * random tokens) and the placeholders themselves, which stay in the controller.
 */
export function placeholdersOf(
  env: Readonly<Record<string, ToolEnvValue>>,
  field = 'env',
): { env: Record<string, string>; placeholders: CredentialPlaceholder[] } {
  const out: Record<string, string> = {};
  const placeholders: CredentialPlaceholder[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value === 'string') {
      out[name] = value;
      continue;
    }
    const token = `${PLACEHOLDER_PREFIX}${randomBytes(16).toString('hex')}`;
    placeholders.push({ token, credential: value.credential, field: `${field}.${name}` });
    out[name] = token;
  }
  return { env: out, placeholders };
}

/**
 * Every placeholder must be bound to an allowlist entry that references its credential: that
 * entry's domain is the only place its value goes (docs/credentials.md, "Placeholders").
 */
export function checkPlaceholdersBound(
  placeholders: readonly CredentialPlaceholder[],
  allowlist: Allowlist | undefined,
): void {
  for (const placeholder of placeholders) {
    const at = `${placeholder.field}.credential`;
    if (!allowlist?.entries.some((entry) => entry.credential === placeholder.credential))
      throw new UserError(
        'invalid_argument',
        `${at}: ${placeholder.credential} is referenced by no network.allowlist entry; add {"domain": "<where it goes>", "credential": "${placeholder.credential}"} so the proxy knows where its value may go`,
        { details: { field: at } },
      );
  }
}

/**
 * The allowlist with its `credential` references opened: each such entry gets the credential's
 * headers as its `transform` (added to hook requests, like an inline transform) and the
 * placeholders of that credential with its value. A missing id, another tenant's, or a
 * placeholder of a credential without a value is a UserError naming the field.
 */
export async function resolveAllowlist(
  allowlist: Allowlist,
  placeholders: readonly CredentialPlaceholder[],
  credentials: Credentials,
  tenant: string | null,
  field = 'network.allowlist',
): Promise<Allowlist> {
  if (!allowlist.entries.some((entry) => entry.credential !== undefined)) return allowlist;
  const resolved: AllowlistEntry[] = [];
  for (const [index, entry] of allowlist.entries.entries()) {
    if (entry.credential === undefined) {
      resolved.push(entry);
      continue;
    }
    const secret = await credentials.open(
      entry.credential,
      tenant,
      `${field}[${index}].credential`,
    );
    const mine = placeholders.filter((placeholder) => placeholder.credential === entry.credential);
    const at = `${field}[${index}].credential`;
    if (secret.trustedDomains && !secret.trustedDomains.includes(entry.domain))
      throw new UserError(
        'invalid_argument',
        `${at}: ${entry.credential} trusts only ${secret.trustedDomains.join(', ')}, not ${JSON.stringify(entry.domain)}`,
        { details: { field: at } },
      );
    if (secret.oauth2) {
      const grant = secret.oauth2;
      const host = new URL(grant.tokenUrl).hostname.replace(/^\[|\]$/g, '');
      if (!allowlist.entries.some((other) => other.domain === host))
        throw new UserError(
          'invalid_argument',
          `${at}: ${entry.credential}'s token_url host ${JSON.stringify(host)} is not in the allowlist; add {"domain": "${host}"}`,
          { details: { field: at } },
        );
      const tokens = new OAuth2Tokens(grant);
      await firstToken(tokens, entry.credential, at);
      resolved.push({
        domain: entry.domain,
        credential: entry.credential,
        oauth2: {
          accessToken: () => tokens.accessToken(),
          placeholders: mine.map((placeholder) => placeholder.token),
        },
      });
      continue;
    }
    const swaps: Record<string, string> = {};
    for (const placeholder of mine) {
      if (secret.value === undefined)
        throw new UserError(
          'invalid_argument',
          `${placeholder.field}.credential: ${entry.credential} has only headers, no value to put in a variable`,
          { details: { field: `${placeholder.field}.credential` } },
        );
      swaps[placeholder.token] = secret.value;
    }
    resolved.push({
      domain: entry.domain,
      credential: entry.credential,
      ...(Object.keys(secret.headers).length > 0 ? { transform: secret.headers } : {}),
      ...(mine.length > 0 ? { placeholders: swaps } : {}),
    });
  }
  return new Allowlist(resolved, field);
}
