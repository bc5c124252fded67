// One call to the Docker engine: logged with what it names, its failure a SystemError.
import { SystemError } from '../../errors/index.js';
import type { Logger } from '../../record/logger.js';

/** Engine errors become SystemErrors; a socket nobody answers on becomes `engine_unavailable`. */
export function engineError(action: string, error: unknown): SystemError {
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') {
    return new SystemError(
      'engine_unavailable',
      `No Docker engine answers (${code} while trying to ${action}). Run \`hookbox doctor\`.`,
      { retryable: true, cause: error },
    );
  }
  const status = (error as { statusCode?: number }).statusCode;
  const message =
    (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
  return new SystemError('sandbox_failed', `Docker engine refused to ${action}: ${message}`, {
    details: status === undefined ? {} : { status },
    cause: error,
  });
}

export function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/**
 * Runs one engine call: logged with `context` (the container, volume, network or image it names)
 * and its duration; a failure is logged and becomes a SystemError.
 */
export type EngineCall = <T>(
  action: string,
  context: Record<string, unknown>,
  run: () => Promise<T>,
) => Promise<T>;

export function loggedEngineCall(logger: Logger): EngineCall {
  return async (action, context, run) => {
    const started = performance.now();
    try {
      const result = await run();
      logger.debug(
        { ...context, action, durationMs: Math.round(performance.now() - started) },
        'engine call',
      );
      return result;
    } catch (error) {
      logger.debug({ ...context, action, error: (error as Error).message }, 'engine call failed');
      throw engineError(action, error);
    }
  };
}

/** The outcome of an engine call, or undefined when what it names is not there (404). */
export async function unlessNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (isNotFound((error as SystemError).cause)) return undefined;
    throw error;
  }
}
