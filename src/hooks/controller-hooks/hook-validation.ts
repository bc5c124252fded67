import { UserError } from '../../errors/errors.js';
import { HOOK_EVENT_NAMES, HOOK_METHOD_OF_EVENT, type Hook, type HookEventName } from './hook.js';

/**
 * Checks hooks at registration rather than at their first event: hooks may come from an operator's
 * JavaScript module that no type checker has seen, and a hook that turns out to be broken in the
 * middle of a call would fail that call instead of failing start-up.
 * @param where names the list in error messages, for example `hooks` or a module's file name.
 */
export function validateHooks(hooks: readonly unknown[], where = 'hooks'): Hook[] {
  const seenNames = new Set<string>();
  return hooks.map((candidate, index) => {
    const field = `${where}[${index}]`;
    if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) {
      throw invalid(field, 'a hook must be an object with a `name`');
    }
    const hook = candidate as Record<string, unknown>;
    const name = hook['name'];
    if (typeof name !== 'string' || name.trim() === '') {
      throw invalid(`${field}.name`, 'a hook needs a non-empty string `name`');
    }
    if (seenNames.has(name)) {
      throw invalid(
        `${field}.name`,
        `two hooks are named "${name}"; records could not tell them apart`,
      );
    }
    seenNames.add(name);
    checkEvents(hook, `${field}.events`, name);
    checkOptional(
      hook['kind'],
      `${field}.kind`,
      (kind) => kind === 'hook' || kind === 'policy',
      'must be "hook" or "policy"',
    );
    checkOptional(
      hook['timeoutMs'],
      `${field}.timeoutMs`,
      (timeout) => typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0,
      'must be a positive number of milliseconds',
    );
    for (const method of Object.values(HOOK_METHOD_OF_EVENT)) {
      checkOptional(
        hook[method],
        `${field}.${method}`,
        (value) => typeof value === 'function',
        'must be a function',
      );
    }
    return candidate as Hook;
  });
}

/** The events a hook takes part in: its declared `events`, or else every event it has a method for. */
export function eventsHandledBy(hook: Hook): ReadonlySet<HookEventName> {
  if (hook.events !== undefined) return new Set(hook.events);
  return new Set(
    HOOK_EVENT_NAMES.filter((event) => typeof hook[HOOK_METHOD_OF_EVENT[event]] === 'function'),
  );
}

function checkEvents(hook: Record<string, unknown>, field: string, name: string): void {
  const events = hook['events'];
  if (events === undefined) return;
  if (!Array.isArray(events)) throw invalid(field, 'must be a list of event names');
  events.forEach((event: unknown, index) => {
    if (typeof event !== 'string' || !(HOOK_EVENT_NAMES as readonly string[]).includes(event)) {
      throw invalid(
        `${field}[${index}]`,
        `unknown event ${JSON.stringify(event)}; known: ${HOOK_EVENT_NAMES.join(', ')}`,
      );
    }
    const method = HOOK_METHOD_OF_EVENT[event as HookEventName];
    if (typeof hook[method] !== 'function') {
      throw invalid(
        `${field}[${index}]`,
        `hook "${name}" declares ${event} but has no ${method} method`,
      );
    }
  });
}

function checkOptional(
  value: unknown,
  field: string,
  isValid: (value: unknown) => boolean,
  rule: string,
): void {
  if (value !== undefined && !isValid(value)) throw invalid(field, rule);
}

function invalid(field: string, message: string): UserError {
  return new UserError('invalid_argument', `${field}: ${message}`, { details: { field } });
}
