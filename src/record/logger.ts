import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The controller's structured log. Quiet by default on the command line (warnings only) so that a
 * CLI user sees the command's output; `HOOKBOX_LOG_LEVEL=debug` shows every engine call.
 */
export function createLogger(options: { level?: string; destination?: number } = {}): Logger {
  const level = options.level ?? process.env.HOOKBOX_LOG_LEVEL ?? 'warn';
  return pino(
    { name: 'hookbox', level },
    pino.destination({ dest: options.destination ?? 2, sync: true }),
  );
}

let shared: Logger | undefined;

/** The process-wide default logger (stderr). */
export function defaultLogger(): Logger {
  shared ??= createLogger();
  return shared;
}
