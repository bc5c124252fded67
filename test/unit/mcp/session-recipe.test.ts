// What `/v1beta/mcp` makes a session's environment from (docs/mcp.md, "Streamable HTTP"): bad
// recipes are refused naming the parameter, before anything is made.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/index.js';
import { sessionRecipeOf, SOURCES_HEADER } from '../../../src/mcp/session-recipe.js';

const header = (value: unknown) => ({
  [SOURCES_HEADER]: Buffer.from(JSON.stringify(value)).toString('base64'),
});

function refusal(query: unknown, headers: Record<string, string> = {}): UserError {
  try {
    sessionRecipeOf(query, headers);
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('sessionRecipeOf', () => {
  it('takes the vocabulary from the agent, the sources from the header', () => {
    const recipe = sessionRecipeOf(
      { agent: 'antigravity-preview-05-2026', template: 'full' },
      header([{ type: 'inline', target: 'workspace/a.txt', content: 'a' }]),
    );
    expect(recipe).toEqual({
      vocabulary: '2026-05',
      template: 'full',
      sources: [{ type: 'inline', target: 'workspace/a.txt', content: 'a' }],
    });
    expect(sessionRecipeOf({}, {}).vocabulary).toBe('2026-09');
  });

  it.each([
    [{ vocabulary: '1999-01' }, {}, 'vocabulary'],
    [{ colour: 'red' }, {}, 'query'],
    [{ template: '' }, {}, 'template'],
    [{ snapshot_id: 'snap_1', template: 'full' }, {}, 'snapshot_id'],
    [{}, { [SOURCES_HEADER]: 'not base64 json' }, SOURCES_HEADER],
    [{}, header([{ type: 'inline', target: '../etc/passwd', content: 'x' }]), 'sources[0].target'],
    [{}, header([{ type: 'inline', target: '.agents/hooks.json', content: '{' }]), undefined],
  ])('refuses %j %j naming %s', (query, headers, field) => {
    const error = refusal(query, headers);
    expect(error.kind).toBe('user');
    if (field !== undefined) expect(error.details.field).toBe(field);
    expect(error.message.length).toBeGreaterThan(10);
  });
});
