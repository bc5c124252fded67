// `hookbox serve` in this process (port 0) against real containers: the Gemini hooks page examples
// with the scripted agent, streaming, environments, expiry, shutdown, and every bad request.
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/environments/controller.js';
import { UserError } from '../../src/errors/index.js';
import { DriverRegistry } from '../../src/interactions/drivers/index.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/sandbox/docker-container-client.js';
import { diskRootOf } from '../../src/sandbox/workspace-disk.js';
import { LABEL_CONTROLLER, LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
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

const KEY = 'integration-test-key';
const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const docker = new DockerContainerClient(logger);

async function serverWith(
  options: { environmentTtlMs?: number; sweepIntervalMs?: number; drivers?: DriverRegistry } = {},
): Promise<RunningServer> {
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-server-')),
    logger,
    startEngine: false,
  });
  return startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [KEY],
    logger,
    controller,
    ...options,
  });
}

/** Containers, volumes and workspace disks of one server's controller. */
async function resourcesOf(
  server: RunningServer,
): Promise<{ containers: number; volumes: number; disks: number }> {
  const filter = [
    `${LABEL_MANAGED}=true`,
    `${LABEL_CONTROLLER}=${server.service.controller.identity.id}`,
  ];
  const [containers, volumes] = await Promise.all([
    docker.listContainers(filter),
    docker.listVolumes(filter),
  ]);
  let disks = 0;
  try {
    disks = readdirSync(diskRootOf(server.service.controller.home)).length;
  } catch {
    // No disk root yet: no disk was ever made.
  }
  return { containers: containers.length, volumes: volumes.length, disks };
}

/** A parsed answer: an error body, an Interaction, an environment… (tests read what they expect). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = any;

let server: RunningServer;
beforeAll(async () => {
  server = await serverWith();
});
afterAll(async () => {
  await server?.close();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Answer; text: string; type: string | null }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      'x-goog-api-key': KEY,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, type: response.headers.get('content-type') };
}

const create = async (body: unknown): Promise<Interaction> => {
  const answer = await call('POST', '/v1beta/interactions', body);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Interaction;
};

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
      is_error: true,
      blocked: true,
      hooks: [],
    });
    expect(echoCall).toMatchObject({ hooks: [{ outcome: 'allow' }] });
    expect(echo).toMatchObject({
      type: 'code_execution_result',
      is_error: false,
      blocked: false,
      result: { exit_code: 0, stdout: 'hello\n' },
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
      'tool_call',
      'tool_result',
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
      type: 'tool_result',
      is_error: false,
      blocked: false,
      result: { content: '{"department": "Engineering", "team_size": 42, "status": "active"}' },
    });
    expect(second.steps[1]).toMatchObject({ hooks: [{ group: 'privacy-gate', outcome: 'allow' }] });
  });

  it('audit logging: the http post hook runs through the egress proxy; an unreachable telemetry host is recorded, not fatal', async () => {
    // No outside network here: telemetry.example.com does not resolve, so the post hook ends
    // "error" — which, like every post hook outcome, cannot block. test/integration/network.test.ts
    // drives the same example against a local HTTPS telemetry server.
    const answer = await call(
      'POST',
      '/v1beta/interactions',
      scripted(
        AUDIT_REQUEST,
        {
          type: 'tool_call',
          name: 'write_file',
          arguments: { path: '/workspace/audit.log', content: 'event 1' },
        },
        { type: 'tool_call', name: 'read_file', arguments: { path: '/workspace/audit.log' } },
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.json.status).toBe('completed');
    const results = answer.json.steps.filter(
      (step: { type: string }) => step.type === 'tool_result',
    );
    expect(results.map((step: { is_error: boolean }) => step.is_error)).toEqual([false, false]);
    expect(JSON.stringify(results[1].result)).toContain('event 1');
    const hooks = results.flatMap(
      (step: { hooks: { type: string; outcome: string }[] }) => step.hooks,
    );
    expect(
      hooks.map((hook: { type: string; outcome: string }) => [hook.type, hook.outcome]),
    ).toEqual([
      ['http', 'error'],
      ['http', 'error'],
    ]);
    await call('DELETE', `/v1beta/environments/${answer.json.environment_id}`);
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
    expect(noNetwork.json.error.details.field).toBe('environment.sources[0].content');
    expect(noNetwork.json.error.message).toMatch(/"http" handlers need a network.allowlist/);
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
    const arrivals: { event: string; at: number; data: Answer }[] = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const [eventLine, dataLine] = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        arrivals.push({
          event: eventLine!.slice('event: '.length),
          at: performance.now(),
          data: JSON.parse(dataLine!.slice('data: '.length)),
        });
      }
    }
    expect(arrivals.map((a) => a.event)).toEqual([
      'interaction.created',
      'step',
      'step',
      'step',
      // The slow call's output as it comes, before its steps (docs/environments.md, "Live output").
      'code_execution_output',
      'step',
      'step',
      'interaction.complete',
    ]);
    expect(arrivals[4]!.data).toMatchObject({ stream: 'stdout', chunk: 'late\n' });
    // The blocked call's steps arrive before the slow call has finished.
    expect(arrivals[7]!.at - arrivals[3]!.at).toBeGreaterThan(200);
    expect(arrivals[3]!.data.step).toMatchObject({ blocked: true });
    const final = arrivals[7]!.data.interaction as Interaction;
    expect(final.status).toBe('completed');
    expect((await call('GET', `/v1beta/interactions/${final.id}`)).json).toEqual(final);
  });
});

describe('environments', () => {
  it('GET shows it, an object with environment_id replaces its gates and adds files, DELETE removes it', async () => {
    const first = await create(
      scripted(SECURITY_GATE_REQUEST, codeCall('echo one > /workspace/one')),
    );
    const id = first.environment_id;
    const info = await call('GET', `/v1beta/environments/${id}`);
    expect(info.json).toMatchObject({
      environment_id: id,
      type: 'remote',
      status: 'idle',
      hook_groups: ['security-gate'],
    });
    expect(Date.parse(info.json.expires_at) - Date.now()).toBeGreaterThan(25 * 60_000);

    const second = await create({
      agent: 'scripted',
      input: [codeCall('rm -rf /workspace/one && cat /workspace/two')],
      environment: {
        type: 'remote',
        environment_id: id,
        sources: [
          { type: 'inline', target: '.agents/hooks.json', content: '{"audit": {}}' },
          { type: 'inline', target: 'workspace/two', content: 'two' },
        ],
      },
    });
    expect(second.environment_id).toBe(id);
    expect(second.steps[1]).toMatchObject({
      blocked: false,
      result: { exit_code: 0, stdout: 'two' },
    });
    expect((await call('GET', `/v1beta/environments/${id}`)).json.hook_groups).toEqual(['audit']);

    const before = await resourcesOf(server);
    expect((await call('DELETE', `/v1beta/environments/${id}`)).status).toBe(200);
    expect(await resourcesOf(server)).toEqual({
      containers: before.containers - 1,
      volumes: before.volumes - 2,
      disks: before.disks - 1,
    });
    const gone = await call('GET', `/v1beta/environments/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.error.message).toContain('deleted');
    const reuse = await call('POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: 'x',
      environment: id,
    });
    expect(reuse.status).toBe(404);
    expect(reuse.json.error.details.field).toBe('environment');
  });

  it('idle environments expire after the TTL and are removed', async () => {
    const short = await serverWith({ environmentTtlMs: 1500, sweepIntervalMs: 200 });
    try {
      const answer = await fetch(`${short.url}/v1beta/interactions`, {
        method: 'POST',
        headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'scripted', input: 'x', environment: 'remote' }),
      });
      const interaction = (await answer.json()) as Interaction;
      expect(await resourcesOf(short)).toEqual({ containers: 1, volumes: 2, disks: 1 });
      const deadline = Date.now() + 15_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = (
          await fetch(`${short.url}/v1beta/environments/${interaction.environment_id}`, {
            headers: { 'x-goog-api-key': KEY },
          })
        ).status;
      }
      expect(status).toBe(404);
      expect(await resourcesOf(short)).toEqual({ containers: 0, volumes: 0, disks: 0 });
    } finally {
      await short.close();
    }
  });

  it('close (what SIGTERM does) lets the interaction in flight finish, then removes every environment', async () => {
    const other = await serverWith();
    const running = fetch(`${other.url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        agent: 'scripted',
        input: [codeCall('sleep 1; echo finished')],
        environment: 'remote',
      }),
    });
    while (other.service.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await other.close();
    const answer = await running;
    expect(answer.status).toBe(200);
    const interaction = (await answer.json()) as Interaction;
    expect(interaction.steps[1]).toMatchObject({ result: { stdout: 'finished\n' } });
    expect(await resourcesOf(other)).toEqual({ containers: 0, volumes: 0, disks: 0 });
    await expect(fetch(`${other.url}/healthz`)).rejects.toThrow();
  });

  it('refuses to start beyond loopback without a key', async () => {
    await expect(startServer({ host: '0.0.0.0', port: 0, apiKeys: [] })).rejects.toBeInstanceOf(
      UserError,
    );
  });
});

describe('bad requests: 4xx, a JSON error naming the field, nothing left behind', () => {
  const big = () =>
    JSON.stringify({
      agent: 'scripted',
      input: 'x',
      environment: {
        type: 'remote',
        sources: [
          { type: 'inline', target: 'workspace/big', content: 'x'.repeat(32 * 1024 * 1024) },
        ],
      },
    });
  const source = (target: string, content = '') => ({
    agent: 'scripted',
    input: 'x',
    environment: { type: 'remote', sources: [{ type: 'inline', target, content }] },
  });

  const cases: [string, () => ReturnType<typeof call>, number, string, string][] = [
    [
      'malformed JSON',
      () => call('POST', '/v1beta/interactions', '{"agent": "scripted",'),
      400,
      'invalid_argument',
      'body',
    ],
    [
      'not JSON at all',
      () =>
        call('POST', '/v1beta/interactions', 'agent=scripted', {
          'content-type': 'application/x-www-form-urlencoded',
        }),
      400,
      'invalid_argument',
      'content-type',
    ],
    [
      'unknown field',
      () =>
        call('POST', '/v1beta/interactions', {
          ...SECURITY_GATE_REQUEST,
          agent: 'scripted',
          previous_id: 'x',
        }),
      400,
      'invalid_argument',
      'previous_id',
    ],
    [
      'unknown field in a source',
      () =>
        call('POST', '/v1beta/interactions', {
          agent: 'scripted',
          input: 'x',
          environment: {
            type: 'remote',
            sources: [{ type: 'inline', target: 'workspace/a', content: '', mode: 493 }],
          },
        }),
      400,
      'invalid_argument',
      'environment.sources[0].mode',
    ],
    [
      'wrong type',
      () =>
        call('POST', '/v1beta/interactions', {
          agent: 'scripted',
          input: 'x',
          environment: 'remote',
          stream: 'yes',
        }),
      400,
      'invalid_argument',
      'stream',
    ],
    [
      'wrong type of a call argument',
      () =>
        call(
          'POST',
          '/v1beta/interactions',
          scripted(SECURITY_GATE_REQUEST, codeCall('ls'), {
            type: 'code_execution_call',
            arguments: { code: ['ls'] },
          }),
        ),
      400,
      'invalid_tool_call',
      'input[2].arguments.code',
    ],
    [
      'unknown environment id',
      () =>
        call('POST', '/v1beta/interactions', {
          agent: 'scripted',
          input: 'x',
          environment: 'env_aaaaaaaaaaaaaaaaaaaa',
        }),
      404,
      'not_found',
      'environment',
    ],
    [
      'unknown environment_id in an object',
      () =>
        call('POST', '/v1beta/interactions', {
          agent: 'scripted',
          input: 'x',
          environment: {
            type: 'remote',
            environment_id: 'env_x',
            sources: [{ type: 'inline', target: 'workspace/a', content: '' }],
          },
        }),
      404,
      'not_found',
      'environment.environment_id',
    ],
    [
      'unknown interaction id',
      () => call('GET', '/v1beta/interactions/int_aaaaaaaaaaaaaaaaaaaa'),
      404,
      'not_found',
      'id',
    ],
    [
      'unknown previous_interaction_id',
      () =>
        call('POST', '/v1beta/interactions', {
          agent: 'scripted',
          input: 'x',
          previous_interaction_id: 'int_x',
        }),
      404,
      'not_found',
      'previous_interaction_id',
    ],
    [
      'unknown environment (GET)',
      () => call('GET', '/v1beta/environments/env_x'),
      404,
      'not_found',
      'id',
    ],
    [
      'unknown environment (DELETE)',
      () => call('DELETE', '/v1beta/environments/env_x'),
      404,
      'not_found',
      'id',
    ],
    [
      'source with ..',
      () => call('POST', '/v1beta/interactions', source('workspace/../etc/passwd')),
      400,
      'invalid_sources',
      'environment.sources[0].target',
    ],
    [
      'source outside .agents/ and workspace/',
      () => call('POST', '/v1beta/interactions', source('etc/passwd')),
      400,
      'invalid_sources',
      'environment.sources[0].target',
    ],
    [
      'duplicate sources',
      () =>
        call('POST', '/v1beta/interactions', {
          agent: 'scripted',
          input: 'x',
          environment: {
            type: 'remote',
            sources: [
              { type: 'inline', target: 'workspace/a', content: '' },
              { type: 'inline', target: '/workspace/a', content: '' },
            ],
          },
        }),
      400,
      'invalid_sources',
      'environment.sources[1].target',
    ],
    [
      'hooks.json with a glob matcher',
      () =>
        call(
          'POST',
          '/v1beta/interactions',
          source(
            '.agents/hooks.json',
            '{"g": {"pre_tool_execution": [{"matcher": "*_file", "hooks": [{"type": "command", "command": "true"}]}]}}',
          ),
        ),
      400,
      'invalid_hooks_config',
      'environment.sources[0].content',
    ],
    [
      'hooks.json not JSON',
      () => call('POST', '/v1beta/interactions', source('.agents/hooks.json', '{')),
      400,
      'invalid_hooks_config',
      'environment.sources[0].content',
    ],
    [
      'body over 32 MiB',
      () => call('POST', '/v1beta/interactions', big()),
      413,
      'payload_too_large',
      'body',
    ],
    [
      'missing key',
      () => call('POST', '/v1beta/interactions', SECURITY_GATE_REQUEST, { 'x-goog-api-key': '' }),
      401,
      'unauthenticated',
      'x-goog-api-key',
    ],
    [
      'wrong key',
      () =>
        call('POST', '/v1beta/interactions', SECURITY_GATE_REQUEST, {
          'x-goog-api-key': 'not-the-key-at-all',
        }),
      401,
      'unauthenticated',
      'x-goog-api-key',
    ],
    [
      'wrong Bearer key',
      () =>
        call('GET', '/v1beta/environments', undefined, {
          'x-goog-api-key': '',
          authorization: 'Bearer not-the-key',
        }),
      401,
      'unauthenticated',
      'authorization',
    ],
    [
      'unknown agent',
      () =>
        call('POST', '/v1beta/interactions', { agent: 'gpt-9', input: 'x', environment: 'remote' }),
      400,
      'invalid_argument',
      'agent',
    ],
  ];

  it.each(cases)('%s', async (_name, send, status, code, field) => {
    const before = await ownResources();
    const answer = await send();
    expect(answer.status, answer.text).toBe(status);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.json.error).toMatchObject({ code, status, details: { field } });
    expect(answer.json.error.message.startsWith(field)).toBe(true);
    expect(await ownResources()).toEqual(before);
  });

  it('a Bearer key is accepted like x-goog-api-key; healthz and openapi.json need none', async () => {
    const listed = await call('GET', '/v1beta/environments', undefined, {
      'x-goog-api-key': '',
      authorization: `Bearer ${KEY}`,
    });
    expect(listed.status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toContain('/v1beta/interactions');
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
