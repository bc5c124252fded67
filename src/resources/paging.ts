/**
 * Paging of the SDK resources' lists (docs/environments.md, "Environments as a resource"):
 * `page_size` (default 50, at most 1000) and an opaque `page_token` naming the last key returned,
 * so a page stays right when items before it are deleted.
 */
import { UserError } from '../errors/index.js';

export const PAGE_LIMITS = { defaultSize: 50, maxSize: 1000 } as const;

function refuse(field: string, rule: string): never {
  throw new UserError('invalid_argument', `${field}: ${rule}`, { details: { field } });
}

/** `page_size` and `page_token` of a query; other keys are the caller's to check. */
export function pageOf(query: Record<string, unknown>): { size: number; after?: string } {
  const rawSize = query.page_size;
  let size: number = PAGE_LIMITS.defaultSize;
  if (rawSize !== undefined) {
    size = Number(rawSize);
    if (
      typeof rawSize !== 'string' ||
      !/^\d+$/.test(rawSize) ||
      size < 1 ||
      size > PAGE_LIMITS.maxSize
    )
      refuse('page_size', `must be a whole number from 1 to ${PAGE_LIMITS.maxSize}`);
  }
  const token = query.page_token;
  if (token === undefined || token === '') return { size };
  if (typeof token !== 'string') refuse('page_token', 'must be a token from next_page_token');
  const after = Buffer.from(token, 'base64url').toString('utf8');
  if (!after.startsWith('k:') || Buffer.from(after, 'utf8').toString('base64url') !== token)
    refuse('page_token', 'is not a token this server gave (use next_page_token as returned)');
  return { size, after: after.slice(2) };
}

/** One page of `items` sorted by `keyOf`, and the token of the next (absent on the last page). */
export function pageOfItems<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  page: { size: number; after?: string },
): { items: T[]; nextPageToken?: string } {
  const sorted = [...items].sort((a, b) =>
    keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0,
  );
  const start =
    page.after === undefined ? sorted : sorted.filter((item) => keyOf(item) > page.after!);
  const chosen = start.slice(0, page.size);
  if (start.length <= page.size) return { items: chosen };
  const last = keyOf(chosen[chosen.length - 1]!);
  return { items: chosen, nextPageToken: Buffer.from(`k:${last}`, 'utf8').toString('base64url') };
}
