// A hooks.json that names a script under /.agents that the sources do not contain would fail on
// every call and, under the default on_error, let every call through: it is refused at creation,
// as `hookbox validate` refuses it.
import { describe, expect, it } from 'vitest';
import { fetchJson, useServer } from './api-helpers.js';
import { ownResources } from './cli-helpers.js';
import { useController } from './helpers.js';
import { apiErrorOf } from './api-error.js';

const controller = useController();
const server = useServer();
const hooks = (command: string) =>
  JSON.stringify({
    gate: {
      pre_tool_execution: [{ matcher: '*', hooks: [{ type: 'command', command }] }],
    },
  });

describe('hooks.json naming a missing script', () => {
  it('library: refused before a container is made, naming the handler', async () => {
    const before = await ownResources();
    await expect(
      (await controller()).createEnvironment({
        sources: [
          {
            type: 'inline',
            target: '.agents/hooks.json',
            content: hooks('python3 /.agents/hooks-scripts/missing.py'),
          },
          { type: 'inline', target: '.agents/hooks-scripts/other.py', content: 'print(1)\n' },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'invalid_hooks_config',
      details: { field: 'gate.pre_tool_execution[0].hooks[0].command' },
      message: expect.stringContaining('/.agents/hooks-scripts/missing.py') as string,
    });
    expect(await ownResources()).toEqual(before);
  });

  it('library: a script that is present (absolute or relative to /workspace) is accepted', async () => {
    const environment = await (
      await controller()
    ).createEnvironment({
      sources: [
        {
          type: 'inline',
          target: '.agents/hooks.json',
          content: hooks('python3 .agents/gate.py'),
        },
        {
          type: 'inline',
          target: '.agents/gate.py',
          content: 'import json; print(json.dumps({"decision": "deny", "reason": "gated"}))\n',
        },
      ],
    });
    try {
      const outcome = await environment.call({ name: 'code_execution', args: { code: 'true' } });
      expect(outcome).toMatchObject({ blocked: true, reason: 'gated' });
    } finally {
      await environment.delete();
    }
  });

  it('API: a 400 naming the source and the handler; replacing gates with one is refused too', async () => {
    const answer = await fetchJson(server(), 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [{ type: 'code_execution_call', arguments: { code: 'true' } }],
      environment: {
        type: 'remote',
        sources: [
          { type: 'inline', target: '.agents/hooks.json', content: hooks('/.agents/gone.sh') },
        ],
      },
    });
    expect(answer.status, answer.text).toBe(400);
    expect(apiErrorOf(answer.json).code).toBe('invalid_hooks_config');
    expect(apiErrorOf(answer.json).message).toContain('/.agents/gone.sh');
  });
});
