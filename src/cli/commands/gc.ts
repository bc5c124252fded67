import { defaultLogger } from '../../record/logger.js';
import { DockerContainerClient } from '../../sandbox/docker-container-client.js';
import { LABEL_CONTROLLER_PID, LABEL_ENVIRONMENT, LABEL_MANAGED } from '../../sandbox/labels.js';
import type { CliIo } from '../io.js';

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * `hookbox gc`: removes containers and volumes labelled by hookbox whose controller process is gone
 * (all of them with `--all`), and says what it removed.
 */
export async function gcCommand(
  options: { all?: boolean; json?: boolean },
  io: CliIo,
): Promise<number> {
  const client = new DockerContainerClient(defaultLogger());
  const orphan = (labels: Record<string, string>) =>
    options.all || !alive(Number(labels[LABEL_CONTROLLER_PID]));
  const removed: { containers: string[]; volumes: string[] } = { containers: [], volumes: [] };
  for (const container of await client.listContainers([`${LABEL_MANAGED}=true`])) {
    if (!orphan(container.labels)) continue;
    await client.removeContainer(container.id);
    removed.containers.push(`${container.name} (${container.labels[LABEL_ENVIRONMENT] ?? '?'})`);
  }
  const liveEnvironments = new Set(
    (await client.listContainers([`${LABEL_MANAGED}=true`])).map(
      (container) => container.labels[LABEL_ENVIRONMENT],
    ),
  );
  for (const volume of await client.listVolumes([`${LABEL_MANAGED}=true`])) {
    const removable =
      options.all ||
      (orphan(volume.labels) && !liveEnvironments.has(volume.labels[LABEL_ENVIRONMENT]));
    if (!removable) continue;
    await client.removeVolume(volume.name);
    removed.volumes.push(volume.name);
  }
  if (options.json) io.stdout(JSON.stringify(removed, null, 2) + '\n');
  else {
    for (const container of removed.containers) io.stdout(`removed container ${container}\n`);
    for (const volume of removed.volumes) io.stdout(`removed volume ${volume}\n`);
    io.stdout(
      `${removed.containers.length} container(s), ${removed.volumes.length} volume(s) removed\n`,
    );
  }
  return 0;
}
