// What a replica on PostgreSQL leaves when it is killed is not an orphan to anyone but the replicas
// of its database (docs/operations.md, Orphans): another controller on the same engine, or
// `hookbox gc`, cannot read that database, so it must not take the environment for garbage while
// a live replica may adopt it. Real engine, real containers labelled as a dead replica labels them.
import { spawnSync } from 'node:child_process';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { ownerGone, reapOrphans } from '../../src/controller/reaper.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { LABEL_ENVIRONMENT, ownershipLabels } from '../../src/sandbox/labels.js';

const client = new DockerContainerClient(createLogger({ level: 'silent' }));
const docker = new Docker();
const DATABASE = 'postgres://hookbox:***@127.0.0.1:5432/replicas';
const made: string[] = [];

afterAll(async () => {
  for (const id of made)
    await docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => {});
});

/** A running container labelled as a replica of DATABASE that has since died made it. */
async function leftByDeadReplica(environmentId: string): Promise<string> {
  // The pid of a process that has exited: the "dead controller".
  const deadPid = spawnSync('true').pid;
  const container = await docker.createContainer({
    Image: 'hookbox/sandbox:latest',
    Entrypoint: ['sleep', '600'],
    Labels: ownershipLabels(environmentId, 'sandbox', {
      id: 'ctl_deadreplica',
      pid: deadPid,
      stateFile: DATABASE,
    }),
  });
  made.push(container.id);
  await container.start();
  return container.id;
}

/** Reaps only this test's environment, with `isOrphan` deciding as the named reaper does. */
async function reap(environmentId: string, ownDatabase?: string): Promise<string[]> {
  const removed = await reapOrphans(
    client,
    (labels) => labels[LABEL_ENVIRONMENT] === environmentId && ownerGone(labels, ownDatabase),
  );
  return removed.containers.map((container) => container.environmentId);
}

describe('reaping what a replica on a database left', () => {
  it('another controller or `hookbox gc` leaves it; so does a replica of another database', async () => {
    const environmentId = `env_dbkept${Date.now().toString(36)}`;
    const id = await leftByDeadReplica(environmentId);
    expect(await reap(environmentId)).toEqual([]);
    expect(await reap(environmentId, 'postgres://hookbox:***@127.0.0.1:5432/elsewhere')).toEqual(
      [],
    );
    expect((await client.inspectContainer(id))?.running).toBe(true);
  });

  it('a replica of the same database, which no longer lists it, removes it', async () => {
    const environmentId = `env_dbgone${Date.now().toString(36)}`;
    const id = await leftByDeadReplica(environmentId);
    expect(await reap(environmentId, DATABASE)).toEqual([environmentId]);
    expect(await client.inspectContainer(id)).toBeUndefined();
  });
});
