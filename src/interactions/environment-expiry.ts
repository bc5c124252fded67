/** Idle environments expire: the sweep that removes them and how often it runs. */
import type { Logger } from '../record/logger.js';
import type { EnvironmentLeases } from './leases.js';
import type { ServiceController } from './service-controller.js';

/** How often idle environments are looked for, unless set: min(TTL / 4, 60 s), at least 250 ms. */
export function sweepIntervalOf(ttlMs: number, sweepIntervalMs?: number): number {
  return sweepIntervalMs ?? Math.max(250, Math.min(ttlMs / 4, 60_000));
}

/** Removes environments idle for the TTL; returns their ids. */
export async function sweepIdle(
  controller: Pick<ServiceController, 'listEnvironments' | 'deleteEnvironment'>,
  leases: EnvironmentLeases,
  logger: Logger | undefined,
): Promise<string[]> {
  // Environments this service did not make (re-attached from the state file after a restart)
  // are tracked from their last use, so they expire too.
  for (const environment of controller.listEnvironments())
    if (!leases.info(environment.id)) leases.track(environment.id, environment.lastUsedAt);
  const idle = leases.idle();
  for (const id of idle) {
    const live = controller.listEnvironments().find((e) => e.id === id);
    leases.forget(id, 'expired', live?.tenant ?? null);
    if (!live) continue;
    logger?.info({ environment: id, ttl_ms: leases.ttlMs }, 'environment expired');
    await controller.deleteEnvironment(id).catch((error: unknown) => {
      logger?.error(
        { environment: id, error: (error as Error).message },
        'removing an expired environment failed',
      );
    });
  }
  return idle;
}
