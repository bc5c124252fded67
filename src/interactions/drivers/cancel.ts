import { HookboxError, SystemError } from '../../errors/errors.js';

/**
 * Throws when the interaction was cancelled: the signal's reason if it is a HookboxError (so the
 * caller's own error comes back), otherwise a system error saying so.
 */
export function throwIfCancelled(signal: AbortSignal): void {
  if (!signal.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof HookboxError) throw reason;
  throw new SystemError('internal', 'The interaction was cancelled.', { cause: reason });
}
