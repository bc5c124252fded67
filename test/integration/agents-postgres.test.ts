// Agents with --state-url (docs/agents.md, "Ownership and storage"; docs/kubernetes.md, Several
// replicas): an agent stored through one replica is found and run by another, and survives a
// `kill -9` and restart of the replica that stored it. Real PostgreSQL, real `hookbox serve`
// processes, real containers and gates, both Gemini SDKs unchanged; the base agent is an
// OpenAI-compatible model server on loopback (docs/drivers.md), so the test sees what the agent
// was given: its system instruction and its tools.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { freePort } from './postgres.js';
import { startReplicas, type Replicas } from './replicas.js';
import { jsClient, runPython, SECURITY_GATE_SOURCES } from './sdk-helpers.js';
import type { StepBody } from './api-helpers.js';

const KEY = 'agents-pg-test-key';
const OTHER = 'agents-pg-other-key';
const INSTRUCTION = 'You are the tidy-workspace agent; never delete anything.';

interface ModelRequest {
  messages: { role: string; content: string | null }[];
  tools?: { function: { name: string } }[];
}

let replicas: Replicas;
let model: Server;
const seen: ModelRequest[] = [];

/** A model that asks once for `rm -rf /workspace` when it may run code, then says what it got. */
function answerOf(request: ModelRequest): object {
  const last = request.messages.at(-1)!;
  const mayRunCode = (request.tools ?? []).some((tool) => tool.function.name === 'code_execution');
  if (last.role === 'user' && mayRunCode)
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${seen.length}`,
          type: 'function',
          function: {
            name: 'code_execution',
            arguments: JSON.stringify({ code: 'rm -rf /workspace/*', language: 'bash' }),
          },
        },
      ],
    };
  return { role: 'assistant', content: `done: ${last.content ?? ''}` };
}

beforeAll(async () => {
  model = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const parsed = JSON.parse(body) as ModelRequest;
      seen.push(parsed);
      const message = answerOf(parsed);
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: `chatcmpl-${seen.length}`,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
        }),
      );
    });
  });
  model.listen(0, '127.0.0.1');
  await once(model, 'listening');
  // The replicas are started with this process's environment (replicas.ts).
  process.env.HOOKBOX_OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
  replicas = await startReplicas(`${KEY},${OTHER}`);
});

afterAll(async () => {
  await replicas?.stop();
  model?.close();
  delete process.env.HOOKBOX_OPENAI_BASE_URL;
});

const at = (port: number) => ({ url: `http://127.0.0.1:${port}` }) as RunningServer;
const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: { status?: number }) => error.status,
  );

describe('agents with --state-url', () => {
  it('stored on one replica, run on the other with its instructions, tools and gates; kept across a kill -9', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await replicas.serve(portA);
    await replicas.serve(portB);

    // Stored through A with the JavaScript SDK…
    const onA = jsClient(at(portA), KEY);
    await onA.agents.create({
      id: 'tidy',
      base_agent: 'openai:tidy-model',
      system_instruction: INSTRUCTION,
      base_environment: { type: 'remote', sources: SECURITY_GATE_SOURCES },
      tools: [{ type: 'code_execution' }],
    });
    await onA.agents.create({
      id: 'no-code',
      base_agent: 'openai:tidy-model',
      base_environment: 'remote',
      tools: [],
    });

    // …found and run through B with the Python SDK.
    seen.length = 0;
    const printed = await runPython<{ steps: StepBody[] }>(
      at(portB),
      KEY,
      `
got = client.agents.get("tidy")
ids = sorted(a.id for a in client.agents.list().agents)
ran = client.interactions.create(agent="tidy", input="Tidy up.")
print(json.dumps({"base": got.base_agent, "ids": ids, "status": ran.status,
    "steps": [s.model_dump(mode="json") for s in ran.steps]}))
`,
    );
    expect(printed).toMatchObject({
      base: 'openai:tidy-model',
      ids: ['no-code', 'tidy'],
      status: 'completed',
    });
    // Its system instruction and its tools reached the model…
    expect(seen[0]!.messages[0]).toEqual({ role: 'system', content: INSTRUCTION });
    expect(seen[0]!.tools?.map((tool) => tool.function.name)).toContain('code_execution');
    // …and the call the model made met its base environment's gate.
    const result = printed.steps.find((step) => step.type === 'code_execution_result');
    expect(result).toMatchObject({
      blocked: true,
      result: 'Destructive command blocked by security gate.',
    });

    // Another tenant's key finds nothing, on either replica.
    expect(await statusOf(jsClient(at(portB), OTHER).agents.get('tidy'))).toBe(404);
    expect(await statusOf(jsClient(at(portA), OTHER).agents.delete('tidy'))).toBe(404);

    // A is killed and comes back: the agents are still there, and still run as defined.
    a.kill('SIGKILL');
    await once(a, 'exit');
    await replicas.serve(portA);
    const back = jsClient(at(portA), KEY);
    expect(await back.agents.get('tidy')).toMatchObject({
      id: 'tidy',
      system_instruction: INSTRUCTION,
      tools: [{ type: 'code_execution' }],
    });
    seen.length = 0;
    const again = await back.interactions.create({ agent: 'no-code', input: 'Anything?' });
    expect(again.status).toBe('completed');
    // `tools: []`: the model was not offered code execution, so it only answered.
    expect(seen[0]!.tools?.map((tool) => tool.function.name) ?? []).not.toContain('code_execution');
    expect(seen[0]!.messages.some((message) => message.role === 'system')).toBe(false);

    // Deleted through B, gone on A.
    await jsClient(at(portB), KEY).agents.delete('tidy');
    expect(await statusOf(back.agents.get('tidy'))).toBe(404);
    expect((await back.agents.list()).agents?.map((agent) => agent.id)).toEqual(['no-code']);
  });
});
