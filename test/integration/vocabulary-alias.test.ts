// An operator's HOOKBOX_AGENT_ALIASES picks the driver, never the tool vocabulary
// (docs/drivers.md, "Aliases"): a request naming antigravity-preview-05-2026 gets the 2026-05 tool
// names even when the name is an alias of a 2026-09 agent, so a gate matching `read_file|write_file`
// still fires. Real server, real containers, a real gate script.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverRegistry } from '../../src/interactions/drivers/index.js';
import type { RunningServer } from '../../src/server/index.js';
import { KEY, serverWith } from './server-helpers.js';
import { fetchJson, type EnvironmentBody, type InteractionBody } from './api-helpers.js';

let server: RunningServer;
beforeAll(async () => {
  server = await serverWith({
    drivers: new DriverRegistry({
      env: { HOOKBOX_AGENT_ALIASES: 'antigravity-preview-05-2026=scripted-09-2026' },
    }),
  });
});
afterAll(async () => {
  await server?.close();
});

const GATE = `import json, sys
call = json.load(sys.stdin)["tool_call"]
print(json.dumps({"decision": "deny", "reason": "file tools are gated: " + call["name"]}))
`;
const sources = [
  {
    type: 'inline',
    target: '.agents/hooks.json',
    content: JSON.stringify({
      files: {
        pre_tool_execution: [
          {
            matcher: 'read_file|write_file',
            hooks: [{ type: 'command', command: 'python3 /.agents/gate.py' }],
          },
        ],
      },
    }),
  },
  { type: 'inline', target: '.agents/gate.py', content: GATE },
];

const post = (body: object) =>
  fetchJson(server, 'POST', '/v1beta/interactions', body, { 'x-goog-api-key': KEY });

describe('HOOKBOX_AGENT_ALIASES', () => {
  it('keeps the vocabulary of the agent the request names, so gates on its tool names fire', async () => {
    // Only code_execution, which both vocabularies have: nothing but the agent name picks the names.
    const made = await post({
      agent: 'antigravity-preview-05-2026',
      input: [{ type: 'code_execution_call', arguments: { code: 'echo hi', language: 'bash' } }],
      environment: { type: 'remote', sources },
    });
    expect(made.status, made.text).toBe(200);
    expect((made.json as InteractionBody).status).toBe('completed');
    const id = (made.json as InteractionBody).environment_id;
    const info = await fetchJson(server, 'GET', `/v1beta/environments/${id}`, undefined, {
      'x-goog-api-key': KEY,
    });
    expect((info.json as EnvironmentBody).vocabulary).toBe('2026-05');

    // The 2026-05 write tool meets the gate that names it, and is denied.
    const write = await post({
      agent: 'antigravity-preview-05-2026',
      input: [
        { type: 'tool_call', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      ],
      environment: { type: 'remote', environment_id: id },
    });
    expect(write.status, write.text).toBe(200);
    expect(JSON.stringify((write.json as InteractionBody).steps)).toContain(
      'file tools are gated: write_file',
    );
    const read = await fetchJson(
      server,
      'GET',
      `/v1beta/environments/${id}/files/x.txt`,
      undefined,
      {
        'x-goog-api-key': KEY,
      },
    );
    expect(read.status).toBe(404);
    await fetchJson(server, 'DELETE', `/v1beta/environments/${id}`, undefined, {
      'x-goog-api-key': KEY,
    });
  });
});
