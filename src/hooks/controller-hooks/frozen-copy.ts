/**
 * A deep copy that nobody can change: hooks get these so that a hook that keeps or mutates what it
 * was given cannot alter the original arguments or the raw result that the record keeps. Mutating
 * one throws in strict-mode code, which the runner then treats as a failed hook, instead of the change
 * being silently lost.
 * @throws when the value holds something that cannot be cloned (a function, for example).
 */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A JSON-like object: not null, not an array, and not a class instance such as a Date or a Map. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
