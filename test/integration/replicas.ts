// `hookbox serve` replicas on one real PostgreSQL, for the tests of several replicas
// (docs/kubernetes.md, Several replicas): each replica is a real process with its own HOOKBOX_HOME,
// started on a port and awaited until it listens; `stop()` kills what is left and the database.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { reapOrphans } from '../../src/controller/reaper.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { LABEL_STATE_FILE } from '../../src/sandbox/labels.js';
import { redactUrl } from '../../src/state/postgres-state-store.js';
import { startPostgres, type Postgres } from './postgres.js';

export interface Replicas {
  database: Postgres;
  /** Starts a replica on `port` with the plain API key `key`; resolves once it listens. */
  serve(port: number): Promise<ChildProcess>;
  stop(): Promise<void>;
}

export async function startReplicas(key: string): Promise<Replicas> {
  const database = await startPostgres();
  const children: ChildProcess[] = [];
  return {
    database,
    async serve(port) {
      const home = mkdtempSync(join(tmpdir(), 'hookbox-replica-'));
      const child = spawn(
        'node',
        [resolve('bin/hookbox.js'), 'serve', '--port', String(port), '--state-url', database.url],
        {
          env: {
            ...process.env,
            HOOKBOX_API_KEYS: key,
            HOOKBOX_HOME: home,
            HOOKBOX_LOG_LEVEL: 'warn',
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      children.push(child);
      await new Promise<void>((done, fail) => {
        createInterface({ input: child.stderr }).on(
          'line',
          (line) => line.includes('listening on') && done(),
        );
        child.once('exit', (code) => fail(new Error(`hookbox serve exited ${code}`)));
      });
      return child;
    },
    async stop() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await Promise.all(
        children.map((child) =>
          child.exitCode === null && child.signalCode === null
            ? new Promise((done) => child.once('exit', done))
            : undefined,
        ),
      );
      // What the killed replicas left is only this database's to remove (docs/operations.md,
      // Orphans): as its replicas would once it lists nothing.
      const location = redactUrl(database.url);
      await reapOrphans(
        new DockerContainerClient(createLogger({ level: 'silent' })),
        (labels) => labels[LABEL_STATE_FILE] === location,
      );
      await database.stop();
    },
  };
}
