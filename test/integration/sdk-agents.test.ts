// The Gemini SDKs' agents resource, driven unchanged (base URL and key only) against a real
// `hookbox serve` with real containers: create/get/list/delete, another tenant's key gets 404,
// bad input is a 4xx naming the field, and an interaction with the agent's id runs in a fresh
// environment made from its base environment, behind that environment's gates (docs/agents.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer } from '../../src/server/index.js';
import { apiErrorOf } from './api-error.js';
import { fetchJson, startTestServer } from './api-helpers.js';
import { jsClient, runPython, SECURITY_GATE_SOURCES } from './sdk-helpers.js';

const KEY = 'sdk-agents-key';
const OTHER = 'sdk-agents-other-key';
let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer([KEY, OTHER]);
});
afterAll(async () => {
  await server?.close();
});

const call = (method: string, path: string, body?: object, key = KEY) =>
  fetchJson(server, method, path, body, { 'x-goog-api-key': key });

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: { status?: number }) => error.status,
  );

type Step = { type: string; result?: unknown; blocked?: boolean; is_error?: boolean };

describe('agents through the JavaScript SDK', () => {
  it('create → get → list (paged) → an interaction behind its gates → another tenant 404 → delete', async () => {
    const ai = jsClient(server, KEY);
    const made = await ai.agents.create({
      id: 'gated-js',
      base_agent: 'scripted',
      system_instruction: 'Keep the workspace tidy.',
      base_environment: { type: 'remote', sources: SECURITY_GATE_SOURCES },
      tools: [{ type: 'code_execution' }],
      agent_config: { type: 'antigravity' } as never,
    });
    expect(made).toMatchObject({
      id: 'gated-js',
      base_agent: 'scripted',
      system_instruction: 'Keep the workspace tidy.',
      tools: [{ type: 'code_execution' }],
    });
    expect(await ai.agents.get('gated-js')).toMatchObject({
      id: 'gated-js',
      base_agent: 'scripted',
    });
    await ai.agents.create({ id: 'second-js', base_agent: 'scripted' });
    const first = await ai.agents.list({ page_size: 1 });
    expect(first.agents?.map((agent) => agent.id)).toEqual(['gated-js']);
    const second = await ai.agents.list({ page_size: 1, page_token: first.next_page_token! });
    expect(second.agents?.map((agent) => agent.id)).toEqual(['second-js']);

    // "Our agent, with our gates": the base environment's hook denies rm -rf, echo runs.
    const ran = await ai.interactions.create({
      agent: 'gated-js',
      input: [
        {
          type: 'code_execution_call',
          id: 'c1',
          arguments: { code: 'rm -rf /workspace/*', language: 'bash' },
        },
        {
          type: 'code_execution_call',
          id: 'c2',
          arguments: { code: 'echo still here', language: 'bash' },
        },
      ],
    });
    expect(ran.status).toBe('completed');
    const results = (ran.steps as Step[]).filter((step) => step.type === 'code_execution_result');
    expect(results[0]).toMatchObject({
      result: 'Destructive command blocked by security gate.',
      blocked: true,
    });
    expect(results[1]).toMatchObject({ result: 'still here\n', is_error: false });
    // A fresh environment each time, made from the base environment.
    const again = await ai.interactions.create({
      agent: 'gated-js',
      input: [
        {
          type: 'code_execution_call',
          id: 'c3',
          arguments: { code: 'ls -a /.agents', language: 'bash' },
        },
      ],
    });
    expect(again.environment_id).not.toBe(ran.environment_id);
    expect(JSON.stringify(again.steps)).toContain('hooks.json');

    // Another tenant finds nothing: get, delete and an interaction naming it.
    const stranger = jsClient(server, OTHER);
    expect(await statusOf(stranger.agents.get('gated-js'))).toBe(404);
    expect(await statusOf(stranger.agents.delete('gated-js'))).toBe(404);
    expect((await stranger.agents.list()).agents ?? []).toEqual([]);
    const theirs = await call(
      'POST',
      '/v1beta/interactions',
      { agent: 'gated-js', input: 'hi' },
      OTHER,
    );
    expect(theirs.status).toBe(400);
    expect(apiErrorOf(theirs.json).field).toBe('agent');

    await ai.agents.delete('gated-js');
    await ai.agents.delete('second-js');
    expect(await statusOf(ai.agents.get('gated-js'))).toBe(404);
  });
});

describe('agents through the Python SDK', () => {
  it('create → get → list → an interaction behind its gates → delete', async () => {
    const printed = await runPython<{ listed: string[]; steps: Step[] }>(
      server,
      KEY,
      `
made = client.agents.create(id="gated-py", base_agent="scripted",
    base_environment={"type": "remote", "sources": json.loads(os.environ["SOURCES"])},
    tools=[{"type": "code_execution"}])
got = client.agents.get("gated-py")
listed = client.agents.list()
ran = client.interactions.create(agent="gated-py", input=[
    {"type": "code_execution_call", "id": "p1", "arguments": {"code": "import os; os.system('rm -rf /workspace')", "language": "python"}},
    {"type": "code_execution_call", "id": "p2", "arguments": {"code": "print('py ok')", "language": "python"}}])
client.agents.delete("gated-py")
after = [a.id for a in (client.agents.list().agents or [])]
print(json.dumps({"made": made.id, "base": got.base_agent, "listed": [a.id for a in listed.agents],
    "steps": [s.model_dump(mode="json") for s in ran.steps], "after": after}))
`,
      { SOURCES: JSON.stringify(SECURITY_GATE_SOURCES) },
    );
    expect(printed).toMatchObject({ made: 'gated-py', base: 'scripted', after: [] });
    expect(printed.listed).toContain('gated-py');
    const results = printed.steps.filter((step) => step.type === 'code_execution_result');
    expect(results[0]).toMatchObject({ result: 'Destructive command blocked by security gate.' });
    expect(results[1]).toMatchObject({ result: 'py ok\n' });
  });
});

describe('bad agents', () => {
  it.each([
    [{ id: 'x1', base_agent: 'no-such-driver' }, 400, 'base_agent'],
    [{ id: 'Bad_ID', base_agent: 'scripted' }, 400, 'id'],
    [{ id: 'tools-bad', base_agent: 'scripted', tools: 'all' }, 400, 'tools'],
    [
      { id: 'env-bad', base_agent: 'scripted', base_environment: { type: 'local' } },
      400,
      'base_environment',
    ],
  ])('%j is a %i naming %s', async (body, status, field) => {
    const answer = await call('POST', '/v1beta/agents', body);
    expect(answer.status, answer.text).toBe(status);
    expect(apiErrorOf(answer.json).field).toMatch(new RegExp(`^${field}`));
  });

  it('a duplicate id is a 409 naming id; another tenant may use the same id', async () => {
    expect(
      (await call('POST', '/v1beta/agents', { id: 'twice', base_agent: 'scripted' })).status,
    ).toBe(201);
    const again = await call('POST', '/v1beta/agents', { id: 'twice', base_agent: 'scripted' });
    expect(again.status).toBe(409);
    expect(apiErrorOf(again.json).field).toBe('id');
    const theirs = await call(
      'POST',
      '/v1beta/agents',
      { id: 'twice', base_agent: 'scripted' },
      OTHER,
    );
    expect(theirs.status).toBe(201);
  });
});
