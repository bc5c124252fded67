/** The environments the Interactions API works in: made within quotas, found for a caller, described, deleted. */
import type { Environment } from '../controller/environment.js';
import type { EnvironmentOptions } from '../controller/environment-options.js';
import type { NetworkState } from '../controller/network-change.js';
import { UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { canSee, notFoundError, isOwnedBy } from '../tenants/ownership.js';
import type { QuotaBook } from '../tenants/quotas.js';
import type { Caller } from '../tenants/tenant.js';
import type { EnvironmentLeases } from './leases.js';
import type { EnvironmentInfo } from './schema.js';
import type { ServiceController, ServiceEnvironment } from './service-controller.js';

/**
 * The service's environments (docs/tenants.md, "Ownership" and "Quotas"): every route that names
 * an environment finds it here; idle times are kept by the leases.
 */
export class ServiceEnvironments<E extends ServiceEnvironment = Environment> {
  constructor(
    readonly controller: ServiceController<E>,
    readonly leases: EnvironmentLeases,
    private readonly logger: Logger | undefined,
    private readonly quotas: QuotaBook | undefined,
  ) {}

  /**
   * Makes an environment owned by the caller, within its quotas and the server's ceiling: the
   * places are reserved before anything is made, so concurrent requests cannot overshoot, and a
   * refused request makes nothing.
   */
  async createFor(caller: Caller | undefined, options: EnvironmentOptions): Promise<E> {
    if (!caller || !this.quotas)
      return this.controller.createEnvironment({ ...options, tenant: caller?.tenant ?? null });
    // A request the warm pool would serve counts against the tenant's pooled hand-outs per minute:
    // past it, a 429 (docs/tenants.md, "Quotas"), so no tenant drains the pool the others rely on.
    const pool = this.controller.pools.get(options.template ?? 'default');
    if (
      pool &&
      pool.size > 0 &&
      options.sandbox === undefined &&
      options.network === undefined &&
      options.snapshot === undefined
    )
      this.quotas.checkPooled(caller);
    const reservation = this.reserve(caller);
    try {
      const environment = await this.controller.createEnvironment({
        ...options,
        tenant: caller.tenant,
      });
      if (environment.pooled) this.quotas.recordPooled(caller);
      return environment;
    } finally {
      reservation();
    }
  }

  /**
   * Room for `count` new environments of the caller's, within its quota and the server's ceiling
   * (docs/tenants.md, "Quotas"), or a 429 reserving nothing; returns the release. Without quotas
   * (no caller, or a keyless server) there is nothing to reserve.
   */
  reserve(caller: Caller | undefined, count = 1): () => void {
    if (!caller || !this.quotas) return () => {};
    const live = this.controller.listEnvironments();
    const mine = live.filter((environment) => isOwnedBy(environment.tenant, caller)).length;
    return this.quotas.reserveEnvironment(caller, mine, live.length, count);
  }

  /**
   * A live environment; an unknown one, or one the caller may not see (docs/tenants.md,
   * "Ownership"), is a 404 naming `field` (saying if it expired only to those who could see it).
   * Every route that names an environment finds it here.
   */
  environmentAt(id: string, field: string, caller?: Caller): E {
    const found = this.controller.listEnvironments().find((e) => e.id === id);
    if (found && caller !== undefined && !canSee(found.tenant, caller))
      throw notFoundError('environment', id, field);
    const environment = found;
    if (!environment) {
      // Why it is gone is said only to those who could see it: ids must not be probeable.
      const why = canSee(this.leases.goneOwner(id), caller) ? this.leases.whyGone(id) : undefined;
      const reason =
        why === 'expired'
          ? ` (it expired after ${Math.round(this.leases.ttlMs / 1000)} s idle)`
          : why === 'deleted'
            ? ' (it was deleted)'
            : '';
      throw new UserError('not_found', `${field}: no environment ${JSON.stringify(id)}${reason}`, {
        details: { field },
      });
    }
    return environment;
  }

  /** An environment a request works in directly (the files API): found, and its idle time restarts. */
  environmentInUse(id: string, caller?: Caller): E {
    const environment = this.environmentAt(id, 'id', caller);
    this.leases.touch(id);
    return environment;
  }

  /** `PATCH /v1beta/environments/{id}/network`: new rules for the next call. */
  async replaceNetwork(
    id: string,
    body: unknown,
    caller?: Caller,
  ): Promise<{ environment_id: string; network: NetworkState }> {
    const environment = this.environmentInUse(id, caller);
    const network = await environment.replaceNetwork(body, 'body');
    this.logger?.info({ environment: id }, 'environment network replaced');
    return { environment_id: id, network };
  }

  /** `GET /v1beta/environments/{id}/network`. */
  networkOf(id: string, caller?: Caller): { environment_id: string; network: NetworkState } {
    return { environment_id: id, network: this.environmentAt(id, 'id', caller).network };
  }

  /**
   * With shared state, an environment another replica made is taken on here before a request
   * names it (Controller.adoptFromState); without, nothing happens.
   */
  async adoptEnvironment(id: string): Promise<void> {
    await this.controller.adoptFromState(id);
  }

  /** `GET /v1beta/environments/{id}`: its real state, asked of the engine. */
  async environmentInfo(id: string, caller?: Caller): Promise<EnvironmentInfo> {
    const environment = this.environmentAt(id, 'id', caller);
    const lost = await environment.sandbox.lostReason().catch(() => undefined);
    const lease = this.leases.track(id);
    const expires = this.leases.expiresAt(id);
    return {
      environment_id: id,
      type: 'remote',
      status: lost !== undefined ? 'lost' : lease.busy > 0 ? 'active' : 'idle',
      ...(lost !== undefined ? { lost_reason: lost } : {}),
      vocabulary: environment.vocabulary,
      hook_groups: environment.hooksConfig.groups.map((group) => group.name),
      // The environment's own creation time: a re-attached one keeps its age across a restart.
      created: new Date(Math.min(environment.createdAt, lease.created)).toISOString(),
      last_active: new Date(lease.lastActive).toISOString(),
      expires_at: expires === undefined ? null : new Date(expires).toISOString(),
      tenant: environment.tenant,
    };
  }

  /**
   * The live environments the caller may see (all of them without a caller, or for an admin), each
   * with its real state (a container killed from outside is `lost`).
   */
  async listEnvironments(caller?: Caller): Promise<
    {
      environment_id: string;
      type: 'remote';
      status: 'active' | 'idle' | 'lost';
      tenant: string | null;
    }[]
  > {
    return Promise.all(
      this.controller
        .listEnvironments()
        .filter((environment) => caller === undefined || canSee(environment.tenant, caller))
        .map(async (environment) => {
          const lost = await environment.sandbox.lostReason().catch(() => undefined);
          const busy = (this.leases.info(environment.id)?.busy ?? 0) > 0;
          return {
            environment_id: environment.id,
            type: 'remote' as const,
            status:
              lost !== undefined
                ? ('lost' as const)
                : busy
                  ? ('active' as const)
                  : ('idle' as const),
            tenant: environment.tenant,
          };
        }),
    );
  }

  /** `DELETE /v1beta/environments/{id}`: container and volumes removed (an interaction in it fails). */
  async deleteEnvironment(id: string, caller?: Caller): Promise<void> {
    await this.adoptEnvironment(id);
    const environment = this.environmentAt(id, 'id', caller);
    const actor = caller && caller.tenant !== environment.tenant ? caller.tenant : undefined;
    this.leases.forget(id, 'deleted', environment.tenant);
    await this.controller.deleteEnvironment(id, actor);
    this.logger?.info(
      { environment: id, tenant: environment.tenant, ...(actor ? { actor } : {}) },
      'environment deleted',
    );
  }
}
