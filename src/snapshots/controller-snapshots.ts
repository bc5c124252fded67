// The controller's snapshots: where their records are kept, and the sweep of expired ones.
import type { Environment } from '../controller/environment.js';
import { checkEnvironmentOptions } from '../controller/environment-options-schema.js';
import type { EnvironmentOptions } from '../controller/environment-options.js';
import { UserError } from '../errors/index.js';
import { checkSnapshotTarget, snapshotNotFound } from './snapshot-checks.js';
import type { Logger } from '../record/logger.js';
import { reapSnapshotVolumes } from './snapshot-reaping.js';
import { MemorySnapshotRows, type SnapshotRows } from './snapshot-rows.js';
import { SNAPSHOT_DEFAULTS, type SnapshotOptions } from './snapshot-options.js';
import type { ControllerIdentity } from '../sandbox/labels.js';
import { Snapshots, type SnapshotHost } from './snapshots.js';

/** Checks the library's snapshot options (before anything is started). */
export function checkSnapshotOptions(options: SnapshotOptions = {}): void {
  if (
    options.ttlMs !== undefined &&
    (!Number.isInteger(options.ttlMs) || options.ttlMs < 1000 || options.ttlMs > 365 * 86_400_000)
  )
    throw new UserError(
      'invalid_argument',
      `snapshots.ttlMs: must be a whole number of milliseconds from 1000 to one year (got ${JSON.stringify(options.ttlMs)})`,
      { details: { field: 'snapshots.ttlMs' } },
    );
}

/** What {@link snapshotsOf} reads of the controller: its fields of these names. */
type SnapshotsController = Pick<
  SnapshotHost,
  'client' | 'logger' | 'image' | 'createCopied' | 'deleteEnvironment'
> & { identity: ControllerIdentity; state: { snapshots?: SnapshotRows } | undefined };

/** The controller's snapshots: records in its state when it has one, else in memory. */
export function snapshotsOf(
  controller: SnapshotsController,
  options: SnapshotOptions = {},
): Snapshots {
  return new Snapshots({
    client: controller.client,
    logger: controller.logger,
    controller: controller.identity,
    image: controller.image,
    rows: controller.state?.snapshots ?? new MemorySnapshotRows(),
    ttlMs: options.ttlMs ?? SNAPSHOT_DEFAULTS.ttlMs,
    createCopied: (environmentOptions, copied) =>
      controller.createCopied(environmentOptions, copied),
    deleteEnvironment: (id) => controller.deleteEnvironment(id),
  });
}

/** `createEnvironment({snapshot})`: only `tenant` (and `usePool`) may come with it. */
export async function createFromSnapshot(
  snapshots: Snapshots,
  options: EnvironmentOptions,
): Promise<Environment> {
  checkEnvironmentOptions(options);
  const id = options.snapshot!;
  checkSnapshotTarget(options, '', ['snapshot', 'tenant', 'usePool'], 'snapshot');
  const row = await snapshots.get(id);
  if (!row) throw snapshotNotFound(id, 'snapshot');
  const [environment] = await snapshots.restore(row, options.tenant ?? null);
  return environment!;
}

/**
 * Deletes expired snapshots, and snapshot volumes no record lists, every minute (or every TTL when
 * shorter) while the controller runs; the timer keeps no process alive.
 */
export function sweepSnapshotsEvery(
  snapshots: Snapshots,
  logger: Logger,
  options: SnapshotOptions = {},
): NodeJS.Timeout {
  const intervalMs = Math.max(1000, Math.min(60_000, options.ttlMs ?? SNAPSHOT_DEFAULTS.ttlMs));
  const sweep = async () => {
    const { live, expired } = await snapshots.sweep();
    const known = new Set(live.map((row) => row.id));
    const orphans = await reapSnapshotVolumes(snapshots.client, known);
    if (expired + orphans.length > 0) logger.info({ expired, orphans }, 'snapshots swept');
  };
  const timer = setInterval(() => {
    sweep().catch((error: unknown) =>
      logger.warn({ error: (error as Error).message }, 'sweeping snapshots failed'),
    );
  }, intervalMs);
  timer.unref();
  return timer;
}
