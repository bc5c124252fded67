// `hookbox serve` in this process (port 0) against real containers: the Gemini hooks page examples
// with the scripted agent, streaming, and a model driver. The server: server-helpers.ts.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverRegistry } from '../../src/interactions/drivers/index.js';
import type { Interaction } from '../../src/interactions/schema.js';
import {
  AUDIT_REQUEST,
  codeCall,
  PRIVACY_GATE_REQUEST,
  PRIVACY_REASON,
  privacyFollowUp,
  scripted,
  SECURITY_GATE_REQUEST,
  toolCall,
} from '../unit/interactions/gemini-requests.js';
import { ownResources } from './cli-helpers.js';
import {
  call,
  closeSharedServer,
  create,
  KEY,
  server,
  serverWith,
  startSharedServer,
} from './server-helpers.js';
import { apiErrorOf } from './api-error.js';
import type { InteractionBody } from './api-helpers.js';

beforeAll(startSharedServer);
afterAll(closeSharedServer);

describe('the Gemini hooks page examples, with the scripted agent', () => {
  it('security gate: rm -rf /tmp/forbidden is blocked and the step says why; echo hello runs', async () => {
    const interaction = await create(
      scripted(SECURITY_GATE_REQUEST, codeCall('rm -rf /tmp/forbidden'), codeCall('echo hello')),
    );
    expect(interaction).toMatchObject({
      object: 'interaction',
      status: 'completed',
      agent: 'scripted',
      output_text: '',
    });
    expect(interaction.id).toMatch(/^int_/);
    expect(interaction.environment_id).toMatch(/^env_/);
    const [input, blockedCall, blocked, echoCall, echo] = interaction.steps;
    expect(input).toEqual({
      type: 'user_input',
      content: [{ type: 'text', text: 'Run `rm -rf /tmp/forbidden` using code_execution.' }],
    });
    expect(blockedCall).toMatchObject({
      type: 'code_execution_call',
      arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
      hooks: [
        {
          source: 'sandbox',
          group: 'security-gate',
          event: 'pre_tool_execution',
          type: 'command',
          handler: 'python3 /.agents/hooks-scripts/gate.py',
          outcome: 'deny',
          reason: 'Destructive command blocked by security gate.',
          exit_code: 0,
        },
      ],
    });
    expect(blocked).toEqual({
      type: 'code_execution_result',
      call_id: (blockedCall as { id: string }).id,
      result: 'Destructive command blocked by security gate.',
      structured_result: null,
      is_error: true,
      blocked: true,
      hooks: [],
    });
    expect(echoCall).toMatchObject({ hooks: [{ outcome: 'allow' }] });
    expect(echo).toMatchObject({
      type: 'code_execution_result',
      is_error: false,
      blocked: false,
      structured_result: { exit_code: 0, stdout: 'hello\n' },
    });
    // GET returns it again.
    const again = await call('GET', `/v1beta/interactions/${interaction.id}`);
    expect(again.json).toEqual(interaction);
  });

  it('privacy gate: the private read is blocked, then previous_interaction_id reads the public one in the same environment', async () => {
    const first = await create(
      scripted(
        PRIVACY_GATE_REQUEST,
        toolCall('read_file', { path: '/workspace/private/employees.json' }),
      ),
    );
    expect(first.steps.map((step) => step.type)).toEqual([
      'user_input',
      'function_call',
      'function_result',
    ]);
    expect(first.steps[1]).toMatchObject({
      name: 'read_file',
      hooks: [{ group: 'privacy-gate', outcome: 'deny', reason: PRIVACY_REASON }],
    });
    expect(first.steps[2]).toMatchObject({ is_error: true, blocked: true, result: PRIVACY_REASON });

    const second = await create(
      scripted(
        privacyFollowUp(first.environment_id, first.id),
        toolCall('read_file', { path: '/workspace/public/summary.json' }),
      ),
    );
    expect(second.environment_id).toBe(first.environment_id);
    expect(second.previous_interaction_id).toBe(first.id);
    expect(second.steps[2]).toMatchObject({
      type: 'function_result',
      is_error: false,
      blocked: false,
      result: { content: '{"department": "Engineering", "team_size": 42, "status": "active"}' },
    });
    expect(second.steps[1]).toMatchObject({ hooks: [{ group: 'privacy-gate', outcome: 'allow' }] });
  });

  it('audit logging: the http post hook runs through the egress proxy; an unreachable telemetry host is recorded, not fatal', async () => {
    // No outside network here: telemetry.example.com does not resolve, so the post hook ends
    // "error" — which, like every post hook outcome, cannot block.
    // test/integration/network-http-hooks.test.ts drives the same example against a local HTTPS
    // telemetry server.
    const answer = await call(
      'POST',
      '/v1beta/interactions',
      scripted(
        AUDIT_REQUEST,
        {
          type: 'function_call',
          name: 'write_file',
          arguments: { path: '/workspace/audit.log', content: 'event 1' },
        },
        { type: 'function_call', name: 'read_file', arguments: { path: '/workspace/audit.log' } },
      ),
    );
    expect(answer.status).toBe(200);
    const interaction = answer.json as InteractionBody;
    expect(interaction.status).toBe('completed');
    const results = interaction.steps.filter((step) => step.type === 'function_result');
    expect(results.map((step) => step.is_error)).toEqual([false, false]);
    expect(JSON.stringify(results[1]?.result)).toContain('event 1');
    const hooks = results.flatMap((step) => step.hooks ?? []);
    expect(hooks.map((hook) => [hook.type, hook.outcome])).toEqual([
      ['http', 'error'],
      ['http', 'error'],
    ]);
    await call('DELETE', `/v1beta/environments/${interaction.environment_id}`);
    // Without the allowlist, its http hook is refused before anything is made.
    const before = await ownResources();
    const noNetwork = await call(
      'POST',
      '/v1beta/interactions',
      scripted({
        ...AUDIT_REQUEST,
        environment: { type: 'remote', sources: AUDIT_REQUEST.environment.sources },
      }),
    );
    expect(noNetwork.status).toBe(400);
    expect(apiErrorOf(noNetwork.json).field).toBe('environment.sources[0].content');
    expect(apiErrorOf(noNetwork.json).message).toMatch(/"http" handlers need a network.allowlist/);
    expect(await ownResources()).toEqual(before);
  });
});

describe('streaming', () => {
  it('stream: true sends each step as a server-sent event, then the final Interaction', async () => {
    const response = await fetch(`${server.url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        ...scripted(
          SECURITY_GATE_REQUEST,
          codeCall('rm -rf /tmp/forbidden'),
          codeCall('sleep 0.3; echo late'),
        ),
        stream: true,
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const arrivals: { event: string; at: number; data: Record<string, unknown> }[] = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const [eventLine, dataLine] = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        arrivals.push({
          event: eventLine!.slice('event: '.length),
          at: performance.now(),
          data: JSON.parse(dataLine!.slice('data: '.length)) as Record<string, unknown>,
        });
      }
    }
    expect(arrivals.map((a) => a.event)).toEqual([
      'interaction.created',
      ...Array<string[]>(3).fill(['step.start', 'step.stop']).flat(),
      // The slow call's steps start with its first output, which comes as it is printed
      // (docs/environments.md, "Live output"; docs/gemini-sdks.md, "Streaming").
      'step.start',
      'step.stop',
      'step.start',
      'step.delta',
      'step.stop',
      'interaction.status_update',
      'interaction.completed',
    ]);
    expect(arrivals[10]!.data).toMatchObject({
      index: 4,
      delta: { type: 'code_execution_result', stream: 'stdout', result: 'late\n' },
    });
    // The blocked call's steps arrive before the slow call has finished.
    expect(arrivals[13]!.at - arrivals[6]!.at).toBeGreaterThan(200);
    expect(arrivals[5]!.data.step).toMatchObject({ blocked: true });
    const final = arrivals[13]!.data.interaction as Interaction;
    expect(final.status).toBe('completed');
    expect((await call('GET', `/v1beta/interactions/${final.id}`)).json).toEqual(final);
  });
});

describe('a model driver through the server', () => {
  it('openai:<model>: the model calls rm -rf, the gate blocks it, the reason goes back, the model answers', async () => {
    // A chat-completions endpoint that asks for one call, then says what came back.
    const seen: { messages: { role: string; content: string | null }[] }[] = [];
    const model: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const parsed = JSON.parse(body) as (typeof seen)[number];
        seen.push(parsed);
        const last = parsed.messages.at(-1)!;
        const message =
          last.role === 'tool'
            ? { role: 'assistant', content: `The call was refused: ${last.content}` }
            : {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: 'call_a',
                    type: 'function',
                    function: {
                      name: 'code_execution',
                      arguments: JSON.stringify({
                        code: 'rm -rf /tmp/forbidden',
                        language: 'bash',
                      }),
                    },
                  },
                ],
              };
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            choices: [
              { index: 0, message, finish_reason: last.role === 'tool' ? 'stop' : 'tool_calls' },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    const port = (model.address() as { port: number }).port;
    const withModel = await serverWith({
      drivers: new DriverRegistry({
        env: { HOOKBOX_OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` },
      }),
    });
    try {
      const response = await fetch(`${withModel.url}/v1beta/interactions`, {
        method: 'POST',
        headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ ...SECURITY_GATE_REQUEST, agent: 'openai:fake-model' }),
      });
      const interaction = (await response.json()) as Interaction;
      expect(interaction.status, JSON.stringify(interaction.error)).toBe('completed');
      expect(interaction.steps.map((step) => step.type)).toEqual([
        'user_input',
        'code_execution_call',
        'code_execution_result',
        'model_output',
      ]);
      expect(interaction.steps[2]).toMatchObject({ blocked: true, is_error: true });
      expect(interaction.output_text).toContain('Destructive command blocked by security gate.');
      expect(seen).toHaveLength(2);
      expect(seen[1]!.messages.at(-1)!.content).toContain(
        'Destructive command blocked by security gate.',
      );
    } finally {
      await withModel.close();
      await new Promise((resolve) => model.close(resolve));
    }
  });
});
