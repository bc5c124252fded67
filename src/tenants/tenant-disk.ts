import type { Controller } from '../controller/controller.js';
import type { SnapshotRow } from '../snapshots/snapshot-rows.js';
import { isOwnedBy } from './ownership.js';
import type { DiskUse, QuotaBook } from './quotas.js';
import type { Caller } from './tenant.js';
import type { WorkspaceDisk } from './workspace-disk.js';

/**
 * What counts against a tenant's `disk_mb` (docs/tenants.md, "What counts against disk_mb"): the
 * workspaces of its live environments and its snapshots, as the engine last measured them. What a
 * request would add (a snapshot or fork copies a workspace, a restore copies a snapshot) is counted
 * before anything is made, from a fresh measurement.
 */
export class TenantDisk {
  constructor(
    private readonly measured: WorkspaceDisk,
    private readonly controller: Controller,
    private readonly quotas: QuotaBook,
  ) {}

  /** Measures every volume again now. */
  refresh(): Promise<void> {
    return this.measured.refresh();
  }

  /** A snapshot's size as last measured; null until its volume has been measured. */
  snapshotBytes(row: SnapshotRow): number | null {
    return this.measured.sizeOf(row.volume) ?? null;
  }

  /** An environment's workspace as last measured (0: not measured). */
  workspaceBytes(environmentId: string): number {
    return this.measured.usedBy([environmentId]);
  }

  /** What the caller's tenant holds (also under a former plain-key name; docs/tenants.md). */
  async useOf(caller: Caller): Promise<DiskUse> {
    const environments = this.controller
      .listEnvironments()
      .filter((environment) => isOwnedBy(environment.tenant, caller))
      .map((environment) => environment.id);
    const snapshots = (await this.controller.snapshots.list()).filter((row) =>
      isOwnedBy(row.tenant, caller),
    );
    return {
      workspacesBytes: this.measured.usedBy(environments),
      snapshotsBytes: snapshots.reduce((sum, row) => sum + (this.snapshotBytes(row) ?? 0), 0),
    };
  }

  /**
   * Throws the 429 `disk_mb` when the caller's tenant holds its quota already, or would pass it
   * with `adding` (what the request copies; `what` names it in the message).
   */
  async check(caller: Caller, adding?: { bytes: number; what: string }): Promise<void> {
    this.quotas.checkDisk(caller, await this.useOf(caller), adding);
  }
}
