/**
 * The one path a request is both authorised and routed on (docs/security.md, "Admin routes and
 * request paths").
 *
 * The router (find-my-way) percent-decodes a path before it matches it, and takes an absolute-form
 * target (`GET http://host/metrics`) by its path; a check made on the raw URL would see
 * `/%6detrics` where the router sees `/metrics`. So the server rewrites every URL into a canonical
 * form *before* routing (Fastify's `rewriteUrl`), and every authorisation decision reads that same
 * form: what the check sees is what the router matches.
 *
 * The canonical form: origin-form; percent-encoded unreserved characters (`A-Z a-z 0-9 - . _ ~`,
 * RFC 3986 §2.3) decoded, which never changes what a URL means; `/v1/…` as `/v1beta/…`; the query
 * as it was. Encoded reserved characters (`%2F`, `%3F`, …) stay encoded, as the router keeps them.
 * A path with an empty segment (`//`) or a `.` or `..` segment is not rewritten into another path
 * (that would turn `files/a/../b` into `files/b`, or `files/../network` into another route): it is
 * refused with a 400, as the files API refuses such paths (docs/environments.md, "Files").
 */
import { UserError } from '../errors/index.js';

/** RFC 3986 §2.3: the characters whose percent-encoding means nothing. */
const UNRESERVED = /%(4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|2E|5F|7E)/gi;
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** `/v1/…` as `/v1beta/…`: the Gemini SDKs call `/v1` by default (docs/contract.md §9). */
export function v1betaUrl(url: string): string {
  return url.startsWith('/v1/') || url === '/v1' ? `/v1beta${url.slice(3)}` : url;
}

/** An absolute-form target's path and query (`http://h/p?q` → `/p?q`); undefined if not one. */
function originForm(url: string): string | undefined {
  const match = /^https?:\/\/[^/?#]*([/?#].*)?$/i.exec(url);
  if (!match) return undefined;
  const rest = match[1] ?? '/';
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * The canonical form of a request target (see above). A target that is neither origin-form nor
 * absolute-form (`*`, garbage), or whose path has a malformed escape, is returned unchanged, for
 * the router to refuse (400).
 */
export function canonicalUrl(url: string): string {
  const target = url.startsWith('/') ? url : originForm(url);
  if (target === undefined) return url;
  // The router ends the path at `?` or `#` (a fragment is not part of a request target).
  const end = target.search(/[?#]/);
  const rawPath = end < 0 ? target : target.slice(0, end);
  const rest = end < 0 ? '' : target.slice(end);
  // A `%` without two hex digits is malformed. Decoding around it could make a new escape
  // (`%%36%64` → `%6d`) that the router would decode a second time.
  if (MALFORMED_ESCAPE.test(rawPath)) return url;
  const decoded = rawPath.replace(UNRESERVED, (escape) =>
    String.fromCharCode(parseInt(escape.slice(1), 16)),
  );
  return v1betaUrl(decoded) + rest;
}

/** The path the router matches for `url`: what every authorisation decision is made on. */
export function routedPath(url: string): string {
  const canonical = canonicalUrl(url);
  const end = canonical.search(/[?#]/);
  return end < 0 ? canonical : canonical.slice(0, end);
}

/**
 * Refuses (400, field `path`) a routed path with an empty segment or a `.` or `..` segment, which
 * clients that follow RFC 3986 never send and which would otherwise name one route to the router
 * and seem to name another to a reader. A trailing `/` is not an empty segment.
 */
export function checkPathSegments(path: string): void {
  const segments = path.split('/').slice(1);
  if (path.endsWith('/')) segments.pop();
  const bad = segments.find((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad === undefined) return;
  throw new UserError(
    'invalid_argument',
    `path: ${JSON.stringify(path)} has ${bad === '' ? 'an empty segment (a doubled "/")' : `a ${JSON.stringify(bad)} segment`}; send the path with it resolved`,
    { details: { field: 'path' } },
  );
}
