import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/errors.js';
import { HookRunner, type Hook } from '../../../src/hooks/controller-hooks/index.js';

function constructionError(hooks: unknown[], options = {}): UserError {
  try {
    new HookRunner(hooks as Hook[], options);
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error('the runner accepted the hooks');
}

describe('HookRunner construction', () => {
  it.each([
    ['a hook without a name', [{ beforeToolCall: () => undefined }], 'hooks[0].name'],
    ['two hooks with one name', [{ name: 'a' }, { name: 'a' }], 'hooks[1].name'],
    ['an unknown event', [{ name: 'a', events: ['before_call'] }], 'hooks[0].events[0]'],
    ['an event without its method', [{ name: 'a', events: ['tool_error'] }], 'hooks[0].events[0]'],
    [
      'a method that is not a function',
      [{ name: 'a', afterToolCall: 'log' }],
      'hooks[0].afterToolCall',
    ],
    ['a bad timeout', [{ name: 'a', timeoutMs: 0 }], 'hooks[0].timeoutMs'],
    ['a bad kind', [{ name: 'a', kind: 'gate' }], 'hooks[0].kind'],
    ['something that is not a hook', ['a'], 'hooks[0]'],
  ])('refuses %s, naming the field', (_what, hooks, field) => {
    const error = constructionError(hooks);
    expect(error.code).toBe('invalid_argument');
    expect(error.details.field).toBe(field);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it('refuses a bad runner-wide timeout', () => {
    expect(constructionError([], { hookTimeoutMs: -1 }).details.field).toBe('hookTimeoutMs');
    expect(constructionError([], { hookTimeoutMs: '5000' }).details.field).toBe('hookTimeoutMs');
  });

  it('refuses a group that is not a non-empty string (from JavaScript), naming it', () => {
    for (const group of ['  ', 42, {}])
      expect(constructionError([], { group }).details.field).toBe('group');
  });

  it('accepts a hook with no methods at all, which simply handles no event', () => {
    expect(new HookRunner([{ name: 'idle' }]).hooks).toHaveLength(1);
  });
});
