/**
 * Tenants (docs/tenants.md): every API key belongs to one tenant, and every resource a request makes
 * (environment, interaction, and any kind added later) records the tenant that made it.
 */

/** `tenant` sees and touches only its own resources; `admin` sees and acts on every tenant's. */
export type Role = 'tenant' | 'admin';

/** Per-tenant quotas (docs/tenants.md, "Quotas"). Past one the answer is a 429 naming it. */
export interface TenantQuotas {
  /** Live environments at once. @default 64 */
  environments: number;
  /** Interactions running at once. @default 32 */
  interactions: number;
  /** Environments handed out from the warm pool per minute. @default 120 */
  pooledPerMinute: number;
  /** Sustained requests per second (a token bucket holding two seconds' worth). @default 50 */
  requestsPerSecond: number;
  /** Total workspace disk of the tenant's live environments, in MiB. @default 20480 */
  diskMb: number;
}

export const DEFAULT_TENANT_QUOTAS: TenantQuotas = {
  environments: 64,
  interactions: 32,
  pooledPerMinute: 120,
  requestsPerSecond: 50,
  diskMb: 20 * 1024,
};

/** Who a request acts for. */
export interface Caller {
  /** The tenant's name: what resources record as their owner. */
  tenant: string;
  role: Role;
  quotas: TenantQuotas;
  /**
   * Other names what this key made may be recorded under: the plain-key tenant (`key-…`) of a key
   * that a keys file now names otherwise, so moving a key into a keys file strands nothing
   * (docs/tenants.md, "Moving a key"). @default []
   */
  formerTenants?: readonly string[];
}

/**
 * The caller of a server with no key configured (loopback only): one user, the admin, with no
 * per-tenant quota (there is no one to share with); the server-wide ceiling still holds.
 */
export const LOCAL_CALLER: Caller = {
  tenant: 'local',
  role: 'admin',
  quotas: {
    environments: Number.MAX_SAFE_INTEGER,
    interactions: Number.MAX_SAFE_INTEGER,
    pooledPerMinute: Number.MAX_SAFE_INTEGER,
    requestsPerSecond: Number.MAX_SAFE_INTEGER,
    diskMb: Number.MAX_SAFE_INTEGER,
  },
};
