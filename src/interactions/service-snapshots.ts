// The snapshot and fork routes' work: ownership, quotas, and the API's answers (docs/environments.md).
import type { Environment } from '../controller/environment.js';
import type { ServiceEnvironments } from './service-environments.js';
import type { ServiceEnvironment } from './service-controller.js';
import type { Logger } from '../record/logger.js';
import { assertOwned, canSee } from '../tenants/ownership.js';
import { quotaExceeded, type QuotaBook } from '../tenants/quotas.js';
import type { TenantDisk } from '../tenants/tenant-disk.js';
import type { Caller } from '../tenants/tenant.js';
import { checkForkCount, snapshotNotFound } from '../snapshots/snapshot-checks.js';
import type { SnapshotRow } from '../snapshots/snapshot-rows.js';
import type { SnapshotInfo } from '../snapshots/snapshot-schema.js';

export function snapshotInfoOf(row: SnapshotRow, sizeBytes: number | null = null): SnapshotInfo {
  return {
    snapshot_id: row.id,
    object: 'snapshot',
    environment_id: row.environment_id,
    created: row.created,
    expires_at: row.expires_at,
    tenant: row.tenant,
    template: row.recipe.template,
    vocabulary: row.recipe.vocabulary,
    has_hooks: row.recipe.hooksJson !== null,
    network: row.networked,
    size_bytes: sizeBytes,
  };
}

/**
 * Snapshots and forks for the API (docs/tenants.md): a snapshot is its environment's tenant's;
 * others get the 404 of a missing one. A tenant holds at most its environment quota of snapshots,
 * and a fork's copies count against its environment quota like any new environments.
 */
export class ServiceSnapshots<E extends ServiceEnvironment = Environment> {
  constructor(
    private readonly environments: ServiceEnvironments<E>,
    private readonly quotas: QuotaBook | undefined,
    private readonly logger: Logger | undefined,
    /** Counts snapshots against `disk_mb` and measures them (docs/tenants.md). */
    private readonly disk?: TenantDisk,
  ) {}

  private infoOf(row: SnapshotRow): SnapshotInfo {
    return snapshotInfoOf(row, this.disk?.snapshotBytes(row) ?? null);
  }

  /**
   * With `disk_mb` enforced: measures now, and refuses (429) what would take the caller's tenant
   * past it, `adding` bytes more (docs/tenants.md, "What counts against disk_mb").
   */
  private async checkDisk(
    caller: Caller | undefined,
    adding: () => { bytes: number; what: string },
  ) {
    if (!caller || !this.disk) return;
    await this.disk.refresh();
    await this.disk.check(caller, adding());
  }

  private get snapshots() {
    return this.environments.controller.snapshots;
  }

  /** `POST /v1beta/environments/{id}/snapshots`. */
  async create(environmentId: string, caller?: Caller): Promise<SnapshotInfo> {
    await this.environments.adoptEnvironment(environmentId);
    const environment = this.environments.environmentInUse(environmentId, caller);
    if (caller && this.quotas) {
      const held = (await this.snapshots.list()).filter(
        (row) => row.tenant === caller.tenant,
      ).length;
      if (held >= caller.quotas.environments)
        throw quotaExceeded(
          'snapshots',
          `tenant ${caller.tenant} holds ${held} snapshot(s), its quota (its environment quota); delete one (DELETE /v1beta/snapshots/{id}) or wait for one to expire`,
          60,
        );
    }
    await this.checkDisk(caller, () => ({
      bytes: this.disk!.workspaceBytes(environment.id),
      what: `a snapshot of ${environment.id}`,
    }));
    const row = await this.snapshots.take(environment);
    // Measured now, so its size is in the answer and counts from the next request on.
    await this.disk?.refresh();
    return this.infoOf(row);
  }

  /** A snapshot the caller may see; else the 404 of a missing one naming `field`. */
  async rowAt(id: string, field: string, caller?: Caller): Promise<SnapshotRow> {
    const row = await this.snapshots.get(id);
    if (!row) throw snapshotNotFound(id, field);
    assertOwned(row.tenant, caller, () => snapshotNotFound(id, field));
    return row;
  }

  /** `GET /v1beta/snapshots`. */
  async list(caller?: Caller): Promise<{ snapshots: SnapshotInfo[] }> {
    const rows = await this.snapshots.list();
    return {
      snapshots: rows.filter((row) => canSee(row.tenant, caller)).map((row) => this.infoOf(row)),
    };
  }

  /** `GET /v1beta/snapshots/{id}`. */
  async info(id: string, caller?: Caller): Promise<SnapshotInfo> {
    return this.infoOf(await this.rowAt(id, 'id', caller));
  }

  /** `DELETE /v1beta/snapshots/{id}`. */
  async delete(id: string, caller?: Caller): Promise<void> {
    const row = await this.rowAt(id, 'id', caller);
    await this.snapshots.delete(row);
  }

  /**
   * A new environment from a snapshot, owned by the caller, within its quota (the snapshot's
   * tenant must be the caller's, or the caller an admin).
   */
  async restoreFor(id: string, field: string, caller?: Caller): Promise<E> {
    const row = await this.rowAt(id, field, caller);
    await this.checkDisk(caller, () => ({
      bytes: this.disk!.snapshotBytes(row) ?? 0,
      what: `restoring ${row.id}`,
    }));
    return this.environments.createFor(caller, { snapshot: row.id });
  }

  /** `POST /v1beta/environments/{id}/fork?count=N`. */
  async fork(
    environmentId: string,
    rawCount: unknown,
    caller?: Caller,
  ): Promise<{ environments: { environment_id: string }[] }> {
    const count = checkForkCount(rawCount ?? '1', 'count');
    await this.environments.adoptEnvironment(environmentId);
    const environment = this.environments.environmentInUse(environmentId, caller);
    await this.checkDisk(caller, () => ({
      bytes: count * this.disk!.workspaceBytes(environment.id),
      what: `${count} cop${count === 1 ? 'y' : 'ies'} of ${environment.id}`,
    }));
    const release = this.environments.reserve(caller, count);
    try {
      const copies = await this.environments.controller.forkEnvironment(environment.id, count);
      for (const copy of copies) this.environments.leases.touch(copy.id);
      this.logger?.info(
        {
          environment: environmentId,
          copies: copies.map((copy) => copy.id),
          tenant: caller?.tenant,
        },
        'environment forked',
      );
      return { environments: copies.map((copy) => ({ environment_id: copy.id })) };
    } finally {
      release();
    }
  }
}
