import { execa } from 'execa';
import { join } from 'node:path';
import { SystemError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import type { ContainerClient } from './container-client.js';

/**
 * Makes sure a Docker engine answers; where none does, runs scripts/ensure-engine.sh, which installs
 * Debian's docker.io if needed and starts dockerd detached, then waits for it.
 */
export async function ensureEngine(
  client: ContainerClient,
  options: { quiet?: boolean } = {},
): Promise<void> {
  try {
    await client.ping();
    return;
  } catch {
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
      `could not start a Docker engine: ${String(run.stderr ?? '').trim() || `exit ${run.exitCode}`}`,
    );
  }
  await client.ping();
}
