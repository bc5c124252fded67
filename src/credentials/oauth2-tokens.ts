// Access tokens of an `oauth2` credential (docs/credentials.md, "oauth2"): the controller trades
// the refresh token at `token_url` (RFC 6749 §6), keeps the access token in its memory only and
// trades again shortly before it expires. The egress proxy puts it on the wire; tool code never
// sees it, nor the refresh token or client secret.
import { UserError } from '../errors/index.js';
import type { OAuth2Grant } from './credentials.js';

/** A token is traded again this long before it expires. */
const EARLY_MS = 5_000;
/** A token endpoint that says nothing of expiry: its token is kept this long. */
const DEFAULT_LIFETIME_S = 300;
const TIMEOUT_MS = 10_000;

/** Thrown when the token endpoint fails or answers something that is not a token. */
export class TokenEndpointError extends Error {}

export class OAuth2Tokens {
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly grant: OAuth2Grant,
    private readonly now: () => number = Date.now,
  ) {}

  /** A valid access token, traded for when there is none or it is about to expire. */
  accessToken(): Promise<string> {
    if (this.current && this.now() < this.current.expiresAt - EARLY_MS)
      return Promise.resolve(this.current.token);
    this.pending ??= this.trade().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async trade(): Promise<string> {
    const { grant } = this;
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: grant.refreshToken,
      client_id: grant.clientId,
      client_secret: grant.clientSecret,
      ...(grant.scopes.length > 0 ? { scope: grant.scopes.join(' ') } : {}),
    });
    let answer: Response;
    try {
      answer = await fetch(grant.tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form,
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new TokenEndpointError(`token_url could not be reached (${(error as Error).message})`);
    }
    const text = await answer.text();
    if (!answer.ok) throw new TokenEndpointError(`token_url answered HTTP ${answer.status}`);
    let body: { access_token?: unknown; expires_in?: unknown; refresh_token?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new TokenEndpointError('token_url answered something that is not JSON');
    }
    if (typeof body.access_token !== 'string' || !/^[\x21-\x7e]{1,8192}$/.test(body.access_token))
      throw new TokenEndpointError('token_url answered without a usable "access_token"');
    const lifetime =
      typeof body.expires_in === 'number' && body.expires_in > 0
        ? body.expires_in
        : DEFAULT_LIFETIME_S;
    // A rotated refresh token replaces the old one, in memory (the stored one stays as it was).
    if (typeof body.refresh_token === 'string' && body.refresh_token !== '')
      grant.refreshToken = body.refresh_token;
    this.current = { token: body.access_token, expiresAt: this.now() + lifetime * 1000 };
    return body.access_token;
  }
}

/**
 * The first token of a credential, traded when an environment is made so a token endpoint that
 * fails is a 400 naming `field` then, not a failure on every later request.
 */
export async function firstToken(
  tokens: OAuth2Tokens,
  credential: string,
  field: string,
): Promise<void> {
  try {
    await tokens.accessToken();
  } catch (error) {
    if (!(error instanceof TokenEndpointError)) throw error;
    throw new UserError(
      'invalid_argument',
      `${field}: oauth2 credential ${credential}: ${error.message}`,
      {
        details: { field },
      },
    );
  }
}
