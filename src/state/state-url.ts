import { UserError } from '../errors/index.js';

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable)';
  }
}

/** Checks `--state-url`: a postgres:// or postgresql:// URL. */
export function checkStateUrl(url: string, field = '--state-url'): string {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    throw new UserError(
      'invalid_argument',
      `${field}: must be a postgres://user:password@host:port/database URL (got ${JSON.stringify(redactUrl(url))})`,
      { details: { field } },
    );
  return url;
}
