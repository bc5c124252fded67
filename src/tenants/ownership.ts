import { UserError } from '../errors/index.js';
import type { Caller } from './tenant.js';

/**
 * The one ownership rule, for every kind of resource (docs/tenants.md, "Ownership"): a resource is
 * visible to the tenant that made it and to an admin; to anyone else it does not exist. An
 * ownerless resource (made by the library, or before tenants existed) belongs to the admin only.
 * A key also sees what it made under its plain-key name before a keys file named its tenant
 * (`Caller.formerTenants`; docs/tenants.md, "Moving a key").
 */
export function canSee(owner: string | null | undefined, caller: Caller | undefined): boolean {
  if (caller === undefined || caller.role === 'admin') return true;
  return isOwnedBy(owner, caller);
}

/** Whether the caller itself made the resource (under its name or a former one); quotas count these. */
export function isOwnedBy(owner: string | null | undefined, caller: Caller): boolean {
  if (owner === null || owner === undefined) return false;
  return owner === caller.tenant || (caller.formerTenants ?? []).includes(owner);
}

/**
 * Throws the same 404 a missing resource gets when the caller may not see it: ids must not be
 * probeable, so a stranger's resource and a missing one answer alike (never a 403).
 */
export function assertOwned(
  owner: string | null | undefined,
  caller: Caller | undefined,
  notFound: () => UserError,
): void {
  if (!canSee(owner, caller)) throw notFound();
}

/** A 404 in hookbox's shape: `field: no KIND "ID"`. */
export function notFoundError(kind: string, id: string, field: string, why = ''): UserError {
  return new UserError('not_found', `${field}: no ${kind} ${JSON.stringify(id)}${why}`, {
    details: { field },
  });
}
