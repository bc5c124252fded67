// docs/agents.md, "The API": its JavaScript SDK, Python SDK and curl examples, run as written
// against a real `hookbox serve` with real containers (doc-snippets.ts): the gate their base
// environment carries denies `rm`, `echo` runs, and each example deletes what it stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { startTestServer } from './api-helpers.js';
import { runSnippet } from './doc-snippets.js';

const KEY = 'sdk-agents-docs-key';
let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer([KEY]);
});
afterAll(async () => {
  await server?.close();
});

const run = (name: string) => runSnippet(server, KEY, 'agents.md', name);
const agentsLeft = async () => (await server.service.controller.agents.list(undefined)).length;

describe('docs/agents.md examples', () => {
  it('the JavaScript SDK example', async () => {
    const out = await run('agents-js');
    expect(out).toContain('blocked "no rm here"\nran "tidy\\n"\n');
    expect(out).toMatch(/^agents gated$/m);
    expect(await agentsLeft()).toBe(0);
  });

  it('the Python SDK example', async () => {
    const out = await run('agents-python');
    expect(out).toMatch(/^stored scripted$/m);
    expect(out).toContain('blocked "no rm here"\nran "tidy\\n"\n');
    expect(out).toMatch(/^agents \[\]$/m);
  });

  it('the curl example', async () => {
    const out = await run('agents-curl');
    expect(out).toContain('{"id":"plain","base_agent":"scripted"}');
    expect(out).toMatch(/^\d{4}-\d\d-\d\dT/m);
    expect(out).toMatch(/^hi from plain$/m);
    expect(out).toContain('{"code":404,"status":"NOT_FOUND"}');
  });
});
