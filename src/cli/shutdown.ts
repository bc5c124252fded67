import type { CliIo } from './io.js';

/**
 * How long `hookbox serve` lets the interactions in flight finish after SIGTERM before it stops
 * anyway (`--shutdown-grace`): under Kubernetes' default 30 s termination grace period, so the pod
 * ends by itself rather than by SIGKILL.
 */
export const DEFAULT_SHUTDOWN_GRACE_S = 25;

/** After a clean stop, anything still open gets this long before the process exits regardless. */
const EXIT_AFTER_STOP_MS = 2_000;

/**
 * Runs a server's stop after SIGTERM so that the process ends in bounded time, with exit 0, in
 * every configuration (docs/operations.md, "Stopping"): the stop gets `graceMs`; past it the
 * process exits; after it, a handle nobody closed (a socket, a timer) cannot keep the process alive.
 */
export async function stopWithin(
  graceMs: number,
  stop: () => Promise<void>,
  io: Pick<CliIo, 'stderr'>,
  exit: (code: number) => void = (code) => process.exit(code),
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const outcome = await Promise.race([stop().then(() => 'stopped' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    io.stderr(
      `hookbox serve: still stopping after ${Math.round(graceMs / 1000)} s (--shutdown-grace): exiting; the interactions still running are cut off\n`,
    );
    exit(0);
    return;
  }
  // Unref'd: it fires only if something else still holds the process.
  setTimeout(() => exit(0), EXIT_AFTER_STOP_MS).unref();
}
