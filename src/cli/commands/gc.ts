import {
  liveEnvironmentIds,
  reapOrphans,
  reapSocketFolders,
  reapWorkspaceDisks,
} from '../../controller/reaper.js';
import { diskRootOf } from '../../sandbox/workspace-disk.js';
import { UserError } from '../../errors/index.js';
import { AUDIT_RETENTION_DEFAULTS, pruneAuditLogs } from '../../record/audit-retention.js';
import { socketRootOf } from '../../network/socket-folders.js';
import { hookboxHome } from '../../paths.js';
import { defaultLogger } from '../../record/logger.js';
import { DockerContainerClient } from '../../backends/docker/docker-container-client.js';
import type { CliIo } from '../io.js';
import { createProgress } from '../progress.js';

function wholeNumber(value: string | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new UserError(
      'invalid_argument',
      `${field}: must be a whole number, 0 or more (got ${JSON.stringify(value)})`,
      { details: { field } },
    );
  return number;
}

/**
 * `hookbox gc`: removes containers, volumes and networks labelled by hookbox whose controller process is gone
 * (all of them with `--all`), and audit logs past the retention (docs/operations.md, Audit logs);
 * says what it removed.
 */
export async function gcCommand(
  options: { all?: boolean; json?: boolean; auditMaxAgeDays?: string; auditMaxTotalMb?: string },
  io: CliIo,
): Promise<number> {
  const retention = {
    maxAgeDays: wholeNumber(
      options.auditMaxAgeDays,
      '--audit-max-age-days',
      AUDIT_RETENTION_DEFAULTS.maxAgeDays,
    ),
    maxTotalMb: wholeNumber(
      options.auditMaxTotalMb,
      '--audit-max-total-mb',
      AUDIT_RETENTION_DEFAULTS.maxTotalMb,
    ),
  };
  const client = new DockerContainerClient(defaultLogger());
  const progress = createProgress(io, options);
  let removed: Awaited<ReturnType<typeof reapOrphans>>;
  let socketFolders: string[];
  let disks: Awaited<ReturnType<typeof reapWorkspaceDisks>>;
  let auditLogs: ReturnType<typeof pruneAuditLogs>;
  try {
    removed = await reapOrphans(client, options.all ? () => true : undefined, (message) =>
      progress.update(`hookbox gc: ${message}`),
    );
    progress.update('hookbox gc: egress socket folders');
    socketFolders = await reapSocketFolders(client, socketRootOf(hookboxHome(), undefined));
    progress.update('hookbox gc: workspace disks');
    disks = await reapWorkspaceDisks(client, diskRootOf(hookboxHome()));
    // Audit logs past the retention go too, except those of environments that still exist.
    progress.update('hookbox gc: audit logs');
    auditLogs = pruneAuditLogs(hookboxHome(), retention, await liveEnvironmentIds(client));
  } finally {
    progress.done();
  }
  if (options.json)
    io.stdout(JSON.stringify({ ...removed, socketFolders, disks, auditLogs }, null, 2) + '\n');
  else {
    for (const container of removed.containers)
      io.stdout(`removed container ${container.name} (${container.environmentId})\n`);
    for (const volume of removed.volumes) io.stdout(`removed volume ${volume}\n`);
    for (const network of removed.networks) io.stdout(`removed network ${network}\n`);
    for (const environmentId of socketFolders)
      io.stdout(`removed egress socket folder of ${environmentId}\n`);
    for (const environmentId of disks) io.stdout(`removed workspace disk of ${environmentId}\n`);
    for (const environmentId of auditLogs) io.stdout(`removed audit log of ${environmentId}\n`);
    io.stdout(
      `${removed.containers.length} container(s), ${removed.volumes.length} volume(s), ${removed.networks.length} network(s), ${auditLogs.length} audit log(s) removed\n`,
    );
  }
  return 0;
}
