// The controller's reaping of leftovers: orphans of gone controllers, socket folders, disks, old audit logs.
import type { AuditRetention } from '../record/audit-retention.js';
import { pruneAuditLogs } from '../record/audit-retention.js';
import type { Logger } from '../record/logger.js';
import { socketRootOf } from '../network/socket-folders.js';
import type { ContainerClient } from '../sandbox/container-client.js';
import { LABEL_ENVIRONMENT } from '../sandbox/labels.js';
import { diskRootOf } from '../sandbox/workspace-disk.js';
import type { ControllerStateStore } from '../state/store.js';
import {
  liveEnvironmentIds,
  ownerGone,
  reapOrphans,
  reapSocketFolders,
  reapWorkspaceDisks,
} from './reaper.js';

export interface Leftovers {
  client: ContainerClient;
  logger: Logger;
  home: string;
  state: ControllerStateStore | undefined;
  /** The proxy sockets' folder (EgressSettings.socketDir), when not the default. */
  socketDir: string | undefined;
  auditRetention: AuditRetention | undefined;
}

/** Orphans: made by a controller that is gone, and not listed in this controller's state. */
export async function reapLeftovers({
  client,
  logger,
  home,
  state,
  socketDir,
  auditRetention,
}: Leftovers): Promise<void> {
  const listed = new Set((await state?.environments())?.map((row) => row.id));
  // Replicas of one database judge its resources by its listing (docs/operations.md, Orphans).
  const ownDatabase = state?.shared ? state.location : undefined;
  const reaped = await reapOrphans(client, (labels) => {
    const environmentId = labels[LABEL_ENVIRONMENT] ?? '';
    return !listed.has(environmentId) && ownerGone(labels, ownDatabase);
  });
  const socketFolders = await reapSocketFolders(client, socketRootOf(home, socketDir));
  const disks = await reapWorkspaceDisks(client, diskRootOf(home));
  const auditLogs = auditRetention
    ? pruneAuditLogs(home, auditRetention, await liveEnvironmentIds(client))
    : [];
  if (auditLogs.length > 0) logger.info({ auditLogs }, 'removed audit logs past retention');
  if (
    reaped.containers.length +
      reaped.volumes.length +
      reaped.networks.length +
      socketFolders.length +
      disks.length >
    0
  )
    logger.info({ ...reaped, socketFolders, disks }, 'removed orphans of dead controllers');
}

/** Reaps again every `intervalMs` while the process runs (the timer keeps no process alive). */
export function reapEvery(
  intervalMs: number,
  reap: () => Promise<void>,
  logger: Logger,
): NodeJS.Timeout {
  const timer = setInterval(() => {
    reap().catch((error: unknown) =>
      logger.warn({ error: (error as Error).message }, 'reaping orphans failed'),
    );
  }, intervalMs);
  timer.unref();
  return timer;
}
