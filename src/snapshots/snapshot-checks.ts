// The checks of snapshot and fork requests: a fork's count, an unknown snapshot.
import { UserError } from '../errors/index.js';
import { SNAPSHOT_DEFAULTS } from './snapshot-options.js';

/**
 * A fork's `count`: a whole number from 1 to {@link SNAPSHOT_DEFAULTS.maxForkCount}. A query
 * parameter arrives as text (`"3"`); anything else is a 400 naming `field`.
 */
export function checkForkCount(raw: unknown, field = 'count'): number {
  const max = SNAPSHOT_DEFAULTS.maxForkCount;
  const count =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && /^\d{1,6}$/.test(raw)
        ? Number(raw)
        : NaN;
  if (!Number.isInteger(count) || count < 1 || count > max)
    throw new UserError(
      'invalid_argument',
      `${field}: must be a whole number from 1 to ${max} (got ${JSON.stringify(raw)})`,
      { details: { field } },
    );
  return count;
}

/** The 404 of a snapshot that is not there (or expired, or another tenant's: ids are not probeable). */
export function snapshotNotFound(id: string, field: string): UserError {
  return new UserError(
    'not_found',
    `${field}: no snapshot ${JSON.stringify(id)} (it may have expired or been deleted)`,
    { details: { field } },
  );
}

/**
 * A new environment made from a snapshot has the snapshot's settings: nothing but `allowed` may
 * come with it. `prefix` is where `config` sits in the request (`environment`; empty for the
 * library's options, whose snapshot field is `snapshot`).
 */
export function checkSnapshotTarget(
  config: object,
  prefix: string,
  allowed: readonly string[] = ['type', 'snapshot_id'],
  snapshotField = `${prefix}.snapshot_id`,
): void {
  const other = Object.entries(config).find(
    ([key, value]) => !allowed.includes(key) && value !== undefined,
  )?.[0];
  if (other === undefined) return;
  const field = prefix ? `${prefix}.${other}` : other;
  throw new UserError(
    'invalid_argument',
    `${field}: not with ${snapshotField} (an environment made from a snapshot has its workspace, gates and settings; add files afterwards with the files API)`,
    { details: { field } },
  );
}
