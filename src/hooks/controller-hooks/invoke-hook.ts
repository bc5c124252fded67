/** How one hook invocation ended. */
export type Settlement =
  | { readonly kind: 'returned'; readonly value: unknown; readonly durationMs: number }
  | { readonly kind: 'threw'; readonly error: unknown; readonly durationMs: number }
  | { readonly kind: 'timed_out'; readonly durationMs: number };

/**
 * Runs one hook method with a time limit and turns every way it can end into a value, so that the
 * runner's dispatch is a plain loop over outcomes. A synchronous throw counts like a rejection. On
 * timeout the signal aborts; the hook's promise cannot be cancelled, but its late answer is ignored.
 */
export async function invokeHook(
  run: (signal: AbortSignal) => unknown,
  timeoutMs: number,
): Promise<Settlement> {
  const controller = new AbortController();
  const startedAt = performance.now();
  const elapsedMs = (): number => Math.round(performance.now() - startedAt);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed_out'>((resolve) => {
    timer = setTimeout(() => resolve('timed_out'), timeoutMs);
  });
  try {
    const returned = Promise.resolve().then(() => run(controller.signal));
    const first = await Promise.race([returned.then((value) => ({ value })), timedOut]);
    if (first === 'timed_out') {
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      // The abandoned promise may still reject later; that must not become an unhandled rejection.
      returned.catch(() => undefined);
      return { kind: 'timed_out', durationMs: elapsedMs() };
    }
    return { kind: 'returned', value: first.value, durationMs: elapsedMs() };
  } catch (error) {
    return { kind: 'threw', error, durationMs: elapsedMs() };
  } finally {
    clearTimeout(timer);
  }
}

/** The message of anything thrown, for records and reasons. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
