import type { Controller } from '../controller/controller.js';
import type { CliIo } from './io.js';

/** Exit status of a command stopped by a signal: 128 + the signal's number (shell convention). */
const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Runs a one-shot command's work so that Ctrl-C (SIGINT) or SIGTERM removes what its controller
 * made — containers and volumes, a call in flight included — before the process exits; a second
 * signal exits at once (the next controller start reaps what is left). docs/operations.md,
 * Leftovers.
 */
export async function removingOnSignal<T>(
  controller: Controller,
  io: CliIo,
  work: () => Promise<T>,
): Promise<T> {
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    const again = () => process.exit(SIGNAL_EXIT[signal]);
    process.once('SIGINT', again);
    process.once('SIGTERM', again);
    io.stderr(`hookbox: ${signal}: removing the environment before exiting\n`);
    controller
      .closeNow()
      .catch((error: unknown) =>
        io.stderr(`hookbox: removing the environment failed: ${(error as Error).message}\n`),
      )
      .finally(() => process.exit(SIGNAL_EXIT[signal]));
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  try {
    return await work();
  } finally {
    process.removeListener('SIGINT', onInt);
    process.removeListener('SIGTERM', onTerm);
  }
}
