import { describe, expect, it } from 'vitest';
import { toCodex } from '../../src/hooks/dialects/codex.js';
import { commandOf } from '../../src/hooks/dialects/foreign-tools.js';
import { valueText } from '../../src/tools/value-text.js';

// Foreign JSON shown as text (hook answers, tool arguments, tool results): never "[object Object]".
describe('valueText', () => {
  it.each([
    ['a string, as it is', 'echo hi', 'echo hi'],
    ['nothing, as empty text', undefined, ''],
    ['a number', 42, '42'],
    ['a boolean', false, 'false'],
    ['null', null, 'null'],
    ['an object, as its JSON', { code: 'ls' }, '{"code":"ls"}'],
    ['an array, as its JSON', ['a', 1], '["a",1]'],
  ])('shows %s', (_what, value, text) => {
    expect(valueText(value)).toBe(text);
  });

  it('an object where a dialect expects text shows its JSON, not [object Object]', () => {
    expect(commandOf({ code: { rm: '-rf /' } })).toBe('{"rm":"-rf /"}');
    expect(
      toCodex({ name: 'view_file', args: { AbsolutePath: 'a.txt', StartLine: 2, EndLine: 5 } }),
    ).toEqual({ name: 'Bash', input: { command: "sed -n '2,5p' -- '/workspace/a.txt'" } });
  });
});
