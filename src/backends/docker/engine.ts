import { execa } from 'execa';
import { join } from 'node:path';
import { SystemError } from '../../errors/index.js';
import { packageRoot } from '../../paths.js';
import type { ContainerClient } from '../../sandbox/container-client.js';
import { describeNoEngine, dockerHostOf } from './docker-host.js';

/**
 * Makes sure a Docker engine answers; where none does, runs scripts/ensure-engine.sh, which installs
 * Debian's docker.io if needed and starts dockerd detached, then waits for it. An engine is started
 * only on the default socket: when DOCKER_HOST points elsewhere, hookbox cannot start what answers
 * there, so it fails at once naming the address and the variable (docs/operations.md, "The engine").
 */
export async function ensureEngine(
  client: ContainerClient,
  options: { quiet?: boolean } = {},
): Promise<void> {
  const host = dockerHostOf();
  try {
    await client.ping();
    return;
  } catch (error) {
    if (!host.startable) {
      throw new SystemError(
        'engine_unavailable',
        `${describeNoEngine(host, (error as Error).message)}; hookbox starts an engine only on the default socket, so start the engine DOCKER_HOST names, or unset DOCKER_HOST`,
        { details: { field: 'DOCKER_HOST' } },
      );
    }
    // fall through: start one
  }
  const script = join(packageRoot(), 'scripts', 'ensure-engine.sh');
  const run = await execa('bash', [script], {
    reject: false,
    env: { QUIET: options.quiet ? '1' : '0' },
    stdio: ['ignore', 'inherit', options.quiet ? 'pipe' : 'inherit'],
  });
  if (run.exitCode !== 0) {
    throw new SystemError(
      'engine_unavailable',
      `could not start a Docker engine at ${host.address}: ${String(run.stderr ?? '').trim() || `exit ${run.exitCode}`}`,
    );
  }
  await client.ping();
}
