import { reapOrphans, reapSocketFolders, reapWorkspaceDisks } from '../../environments/reaper.js';
import { diskRootOf } from '../../sandbox/workspace-disk.js';
import { socketRootOf } from '../../network/socket-folders.js';
import { hookboxHome } from '../../paths.js';
import { defaultLogger } from '../../record/logger.js';
import { DockerContainerClient } from '../../sandbox/docker-container-client.js';
import type { CliIo } from '../io.js';
import { createProgress } from '../progress.js';

/**
 * `hookbox gc`: removes containers, volumes and networks labelled by hookbox whose controller process is gone
 * (all of them with `--all`), and says what it removed.
 */
export async function gcCommand(
  options: { all?: boolean; json?: boolean },
  io: CliIo,
): Promise<number> {
  const client = new DockerContainerClient(defaultLogger());
  const progress = createProgress(io, options);
  let removed: Awaited<ReturnType<typeof reapOrphans>>;
  let socketFolders: string[];
  let disks: Awaited<ReturnType<typeof reapWorkspaceDisks>>;
  try {
    removed = await reapOrphans(client, options.all ? () => true : undefined, (message) =>
      progress.update(`hookbox gc: ${message}`),
    );
    progress.update('hookbox gc: egress socket folders');
    socketFolders = await reapSocketFolders(client, socketRootOf(hookboxHome(), undefined));
    progress.update('hookbox gc: workspace disks');
    disks = await reapWorkspaceDisks(client, diskRootOf(hookboxHome()));
  } finally {
    progress.done();
  }
  if (options.json) io.stdout(JSON.stringify({ ...removed, socketFolders, disks }, null, 2) + '\n');
  else {
    for (const container of removed.containers)
      io.stdout(`removed container ${container.name} (${container.environmentId})\n`);
    for (const volume of removed.volumes) io.stdout(`removed volume ${volume}\n`);
    for (const network of removed.networks) io.stdout(`removed network ${network}\n`);
    for (const environmentId of socketFolders)
      io.stdout(`removed egress socket folder of ${environmentId}\n`);
    for (const environmentId of disks) io.stdout(`removed workspace disk of ${environmentId}\n`);
    io.stdout(
      `${removed.containers.length} container(s), ${removed.volumes.length} volume(s), ${removed.networks.length} network(s) removed\n`,
    );
  }
  return 0;
}
