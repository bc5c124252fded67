import { describe, expect, it } from 'vitest';
import { hooksFromModule, loadHookModule } from '../../../src/hooks/controller-hooks/index.js';

describe('hooksFromModule', () => {
  it('takes one hook or a list of hooks from the default export', () => {
    expect(hooksFromModule({ default: { name: 'one' } }, 'm.js').map((hook) => hook.name)).toEqual([
      'one',
    ]);
    expect(hooksFromModule({ default: [{ name: 'a' }, { name: 'b' }] }, 'm.js')).toHaveLength(2);
  });

  it('refuses a module without a default export, naming the file', () => {
    expect(() => hooksFromModule({ hooks: [] }, 'm.js')).toThrow(
      /hook module m\.js: has no default export/,
    );
  });

  it('refuses a module whose hooks are broken, naming the file and the hook', () => {
    expect(() => hooksFromModule({ default: [{ name: 'a' }, { name: '' }] }, 'm.js')).toThrow(
      /^hook module m\.js: default\[1\]\.name: /,
    );
  });

  it('reports a module it cannot load as the caller’s mistake', async () => {
    await expect(loadHookModule('/nonexistent/hooks.js')).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('cannot load hook module /nonexistent/hooks.js'),
    });
  });
});
