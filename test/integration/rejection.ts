import { expect } from 'vitest';

/**
 * What `promise` rejected with, checked to be a `type` (the test fails if it resolved or rejected
 * with anything else), so the test reads the error's fields with their types.
 */
export async function rejectionOf<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}
