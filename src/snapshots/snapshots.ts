// Snapshots and forks of environments (docs/environments.md, "Snapshots and forks").
import { join } from 'node:path';
import { UserError } from '../errors/index.js';
import type { CopiedFrom } from '../controller/environment-creation.js';
import type { Environment } from '../controller/environment.js';
import type { EnvironmentOptions } from '../controller/environment-options.js';
import { newSnapshotId } from '../ids.js';
import type { NetworkOptions } from '../network/allowlist.js';
import type { ControllerIdentity } from '../sandbox/labels.js';
import { volumeName } from '../sandbox/sandbox-volumes.js';
import { checkForkCount } from './snapshot-checks.js';
import { runCopyHelper, snapshotsUnsupported, type CopyHelperHost } from './copy-helper.js';
import type { EnvironmentRecipe } from './recipe.js';
import { snapshotVolumeLabels } from './snapshot-labels.js';
import type { SnapshotRow, SnapshotRows } from './snapshot-rows.js';
import {
  FillBatch,
  fillPlan,
  snapshotPlan,
  type BatchCopy,
  type CopySource,
} from './workspace-fill.js';

/** What snapshots need of the controller. */
export interface SnapshotHost extends CopyHelperHost {
  controller: ControllerIdentity;
  rows: SnapshotRows;
  /** @default 24 h */
  ttlMs: number;
  /** Makes an environment whose workspace and gates are copied in. */
  createCopied(options: EnvironmentOptions, copied: CopiedFrom): Promise<Environment>;
  /** Deletes an environment (a fork whose siblings failed). */
  deleteEnvironment(id: string): Promise<void>;
}

/** The snapshot volume's name. */
export const snapshotVolumeName = (id: string): string => `hookbox-${id}`;

/** An environment's trees, as the copy helper mounts them (a workspace disk's mount, or its volume). */
function treesOf(environment: Environment): Extract<CopySource, { kind: 'environment' }> {
  const disk = environment.sandbox.diskFolder;
  return {
    kind: 'environment',
    workspace: disk
      ? { hostPath: join(disk, 'mnt') }
      : { volume: volumeName(environment.id, 'workspace') },
    agents: volumeName(environment.id, 'agents'),
  };
}

/** The network rules an environment has now, as given (in memory only). */
function networkOf(environment: Environment): NetworkOptions | undefined {
  const options = environment.networkOptions;
  return environment.egress && options !== undefined && options !== 'disabled'
    ? structuredClone(options)
    : undefined;
}

function optionsOf(
  recipe: EnvironmentRecipe,
  network: NetworkOptions | undefined,
  tenant: string | null,
): EnvironmentOptions {
  return {
    vocabulary: recipe.vocabulary,
    template: recipe.template,
    toolTimeoutMs: recipe.toolTimeoutMs,
    outputCapBytes: recipe.outputCapBytes,
    backgroundProcesses: recipe.backgroundProcesses,
    ...(recipe.env ? { env: recipe.env } : {}),
    ...(recipe.sandbox ? { sandbox: recipe.sandbox } : {}),
    ...(network ? { network } : {}),
    tenant,
    usePool: false,
  };
}

/**
 * The controller's snapshots: each a Docker volume with the workspace and gates (`workspace/`,
 * `agents/`) and a record with how the environment was made. Expired ones are deleted when looked
 * at and by {@link Snapshots.sweep}.
 */
export class Snapshots {
  /** Networks of networked snapshots, by id: their transforms never leave this process. */
  private readonly networks = new Map<string, NetworkOptions>();
  /** Restores under way, by snapshot id: its volume is mounted, so it cannot be deleted now. */
  private readonly restoring = new Map<string, number>();

  constructor(private readonly host: SnapshotHost) {}

  get client(): SnapshotHost['client'] {
    return this.host.client;
  }

  /** Takes a snapshot of an environment between its calls. */
  async take(environment: Environment): Promise<SnapshotRow> {
    const { client } = this.host;
    if (!client.waitContainer) throw snapshotsUnsupported();
    const id = newSnapshotId();
    const volume = snapshotVolumeName(id);
    return environment.whileIdle(async () => {
      const recipe = environment.recipe;
      if (!recipe)
        throw new UserError('conflict', `id: environment ${environment.id} cannot be copied`, {
          details: { field: 'id' },
        });
      await client.createVolume(volume, snapshotVolumeLabels(id, this.host.controller));
      try {
        await runCopyHelper(this.host, environment.id, snapshotPlan(treesOf(environment), volume));
        const network = networkOf(environment);
        const now = Date.now();
        const row: SnapshotRow = {
          id,
          environment_id: environment.id,
          volume,
          created: new Date(now).toISOString(),
          expires_at: new Date(now + this.host.ttlMs).toISOString(),
          tenant: environment.tenant,
          recipe,
          networked: network !== undefined,
        };
        await this.host.rows.save(row);
        if (network) this.networks.set(id, network);
        environment.recordEvent('snapshot_taken', { detail: { snapshot_id: id } });
        this.host.logger.info(
          { snapshotId: id, environmentId: environment.id, tenant: row.tenant },
          'snapshot taken',
        );
        return row;
      } catch (error) {
        await client.removeVolume(volume).catch(() => {});
        throw error;
      }
    });
  }

  /** A live snapshot; an expired one is deleted and undefined. */
  async get(id: string): Promise<SnapshotRow | undefined> {
    const row = await this.host.rows.get(id);
    if (row && Date.parse(row.expires_at) <= Date.now()) {
      await this.remove(row).catch(() => {});
      return undefined;
    }
    return row;
  }

  /** The live snapshots (expired ones deleted on the way). */
  async list(): Promise<SnapshotRow[]> {
    return (await this.sweep()).live;
  }

  /** Deletes the snapshots past their TTL: the live ones, and how many expired. */
  async sweep(): Promise<{ live: SnapshotRow[]; expired: number }> {
    const rows = await this.host.rows.list();
    const now = Date.now();
    const expired = rows.filter((row) => Date.parse(row.expires_at) <= now);
    await Promise.allSettled(expired.map((row) => this.remove(row)));
    return { live: rows.filter((row) => !expired.includes(row)), expired: expired.length };
  }

  /** Deletes a snapshot: its volume, then its record. Refused while it is being restored. */
  async delete(row: SnapshotRow): Promise<void> {
    if ((this.restoring.get(row.id) ?? 0) > 0)
      throw new UserError(
        'conflict',
        `id: snapshot ${row.id} is being restored now; delete it once that is done`,
        { details: { field: 'id' } },
      );
    await this.remove(row);
  }

  private async remove(row: SnapshotRow): Promise<void> {
    await this.host.client.removeVolume(row.volume);
    await this.host.rows.delete(row.id);
    this.networks.delete(row.id);
    this.host.logger.info({ snapshotId: row.id }, 'snapshot deleted');
  }

  /** Makes `count` environments from a snapshot (one helper fills them all). */
  async restore(row: SnapshotRow, tenant: string | null, count = 1): Promise<Environment[]> {
    const network = this.networks.get(row.id);
    if (row.networked && !network)
      throw new UserError(
        'conflict',
        `snapshot_id: snapshot ${row.id} was taken of an environment with a network, whose rules (they may hold secrets) were kept in memory only and were lost when the controller restarted`,
        { details: { field: 'snapshot_id' } },
      );
    this.restoring.set(row.id, (this.restoring.get(row.id) ?? 0) + 1);
    try {
      const source: CopySource = { kind: 'snapshot', volume: row.volume };
      return await this.makeCopies(row.recipe, network, tenant, count, (targets, onStarted) =>
        runCopyHelper(this.host, targets[0]!.environmentId, fillPlan(source, targets), onStarted),
      );
    } finally {
      const left = (this.restoring.get(row.id) ?? 1) - 1;
      if (left > 0) this.restoring.set(row.id, left);
      else this.restoring.delete(row.id);
    }
  }

  /** Deletes every snapshot (a controller without state, closing). */
  async deleteAll(): Promise<void> {
    await Promise.allSettled((await this.list()).map((row) => this.delete(row)));
  }

  /** Makes `count` (1..10) copies of a live environment, copied between its calls. */
  async fork(environment: Environment, rawCount: number): Promise<Environment[]> {
    const count = checkForkCount(rawCount, 'count');
    if (!this.host.client.waitContainer) throw snapshotsUnsupported();
    const recipe = environment.recipe;
    if (!recipe)
      throw new UserError('conflict', `id: environment ${environment.id} cannot be copied`, {
        details: { field: 'id' },
      });
    const source = treesOf(environment);
    // The recipe as it is when the copy is made (gates replaced meanwhile are the new ones).
    const copies = await this.makeCopies(
      recipe,
      networkOf(environment),
      environment.tenant,
      count,
      (targets, onStarted) =>
        environment.whileIdle(() =>
          runCopyHelper(this.host, environment.id, fillPlan(source, targets), onStarted),
        ),
    );
    environment.recordEvent('forked', {
      detail: { environment_ids: copies.map((copy) => copy.id) },
    });
    return copies;
  }

  /**
   * Makes `count` environments in parallel, filled by one helper run; if any fails, the others
   * are deleted and the first failure is reported.
   */
  private async makeCopies(
    recipe: EnvironmentRecipe,
    network: NetworkOptions | undefined,
    tenant: string | null,
    count: number,
    copy: BatchCopy,
  ): Promise<Environment[]> {
    const batch = new FillBatch(count, copy);
    const options = optionsOf(recipe, network, tenant);
    const made = await Promise.allSettled(
      Array.from({ length: count }, (_, index) =>
        this.host
          .createCopied(options, { hooksJson: recipe.hooksJson, fill: batch.fill(index) })
          .catch((error: unknown) => {
            batch.withdraw(index);
            throw error;
          }),
      ),
    );
    const failed = made.find((outcome) => outcome.status === 'rejected');
    const environments = made.flatMap((outcome) =>
      outcome.status === 'fulfilled' ? [outcome.value] : [],
    );
    if (failed) {
      await Promise.allSettled(environments.map((e) => this.host.deleteEnvironment(e.id)));
      throw failed.reason;
    }
    return environments;
  }
}
