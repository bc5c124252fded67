// The HTTP layer and the client, with environments faked (no Docker): auth, error bodies, SSE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookbox, HookboxApiError } from '../../../src/client/index.js';
import { InteractionService } from '../../../src/interactions/service.js';
import {
  errorBodySchema,
  interactionSchema,
  type InteractionEvent,
} from '../../../src/interactions/schema.js';
import { apiErrorOf } from '../../integration/api-error.js';
import { createLogger } from '../../../src/record/logger.js';
import { buildApp } from '../../../src/server/app.js';
import { checkListenSafety, isLoopbackHost } from '../../../src/server/listen-safety.js';
import { KeyTable, loadTenantKeys, requestKey } from '../../../src/tenants/keys.js';
import { openApiDocument } from '../../../src/server/openapi.js';
import { FakeController, registryWith } from './fakes.js';
import { codeCall, scripted, SECURITY_GATE_REQUEST } from './gemini-requests.js';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KEY = 'unit-test-key-1';
const controller = new FakeController();
const service = new InteractionService({
  controller,
  drivers: registryWith(),
});
const app = buildApp({
  // The one cast left: the app wants the real Controller, whose console, metrics, credentials and
  // files routes read more of it than the service does (docs/testing.md, "Fakes the compiler checks").
  service: service as unknown as InteractionService,
  logger: createLogger({ level: 'silent' }),
  apiKeys: [KEY],
  bodyLimit: 64 * 1024,
  version: 'test',
});
let baseUrl = '';

beforeAll(async () => {
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app.close();
  await service.close();
});

const post = (payload: string | object, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/v1beta/interactions',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY, ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe("error answers: Google's envelope, hookbox's code and field in its details", () => {
  it.each([
    [
      'malformed JSON',
      () => post('{"agent": '),
      400,
      'invalid_argument',
      'INVALID_ARGUMENT',
      'body',
    ],
    ['empty body', () => post(''), 400, 'invalid_argument', 'INVALID_ARGUMENT', 'body'],
    [
      'not JSON',
      () => post('{}', { 'content-type': 'text/plain' }),
      400,
      'invalid_argument',
      'INVALID_ARGUMENT',
      'content-type',
    ],
    [
      'unknown field',
      () => post({ agent: 'scripted', input: 'x', environment: 'remote', agnet: 1 }),
      400,
      'invalid_argument',
      'INVALID_ARGUMENT',
      'agnet',
    ],
    [
      'wrong type',
      () => post({ agent: 'scripted', input: 'x', environment: 'remote', tools: {} }),
      400,
      'invalid_argument',
      'INVALID_ARGUMENT',
      'tools',
    ],
    [
      'unknown environment',
      () => post({ agent: 'scripted', input: 'x', environment: 'env_x' }),
      404,
      'not_found',
      'NOT_FOUND',
      'environment',
    ],
    [
      'too large',
      () => post({ agent: 'scripted', input: 'x'.repeat(70 * 1024), environment: 'remote' }),
      413,
      'payload_too_large',
      'INVALID_ARGUMENT',
      'body',
    ],
    [
      'no key',
      () => post({}, { 'x-goog-api-key': '' }),
      401,
      'unauthenticated',
      'UNAUTHENTICATED',
      'x-goog-api-key',
    ],
    [
      'wrong key',
      () => post({}, { 'x-goog-api-key': 'wrong-key-123' }),
      401,
      'unauthenticated',
      'UNAUTHENTICATED',
      'x-goog-api-key',
    ],
    [
      'unknown interaction',
      () =>
        app.inject({
          method: 'GET',
          url: '/v1beta/interactions/int_x',
          headers: { 'x-goog-api-key': KEY },
        }),
      404,
      'not_found',
      'NOT_FOUND',
      'id',
    ],
    [
      'unknown route',
      () => app.inject({ method: 'GET', url: '/v2/nothing', headers: { 'x-goog-api-key': KEY } }),
      404,
      'not_found',
      'NOT_FOUND',
      'path',
    ],
  ])('%s', async (_name, send, status, code, rpcStatus, field) => {
    const before = controller.created;
    const response = await send();
    expect(response.statusCode).toBe(status);
    const body: unknown = response.json();
    const envelope = errorBodySchema.parse(body);
    expect(envelope).toEqual(body);
    // The envelope itself, as Google's APIs and the SDKs' error classes read it (AIP-193).
    const { message } = envelope.error;
    expect(body).toEqual({
      error: {
        code: status,
        message,
        status: rpcStatus,
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: code,
            domain: 'hookbox.dev',
            metadata: expect.objectContaining({ field, retryable: 'false' }) as object,
          },
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field, description: message.slice(field.length + 2) }],
          },
        ],
      },
    });
    const info = envelope.error.details[0];
    expect(
      info?.['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo' &&
        Object.values(info.metadata).every((v) => typeof v === 'string'),
    ).toBe(true);
    expect(apiErrorOf(body)).toMatchObject({ httpStatus: status, code, field });
    expect(message.startsWith(`${field}: `)).toBe(true);
    expect(controller.created).toBe(before);
  });

  it('Api-Revision: this revision or a later one is served; an earlier or malformed one is a 400', async () => {
    const request = { agent: 'scripted', input: 'x', environment: 'remote' };
    for (const revision of ['2026-05-20', '2027-01-31'])
      expect((await post(request, { 'api-revision': revision })).statusCode, revision).toBe(200);
    const v1 = await app.inject({
      method: 'GET',
      url: '/v1/interactions/int_x',
      headers: { 'x-goog-api-key': KEY, 'api-revision': '2026-05-20' },
    });
    expect(apiErrorOf(v1.json())).toMatchObject({ httpStatus: 404, code: 'not_found' });
    for (const [revision, rule] of [
      ['2025-12-01', /before 2026-05-20 \(its outputs shape\)/],
      ['2026-02-30', /not a revision date/],
      ['latest', /not a revision date/],
    ] as const) {
      const before = controller.created;
      const refused = await post(request, { 'api-revision': revision });
      expect(refused.statusCode, revision).toBe(400);
      const error = apiErrorOf(refused.json());
      expect(error, revision).toMatchObject({
        code: 'invalid_argument',
        status: 'INVALID_ARGUMENT',
        field: 'api-revision',
      });
      expect(error.rule).toMatch(rule);
      expect(controller.created).toBe(before);
    }
  });

  it('a Bearer key works like x-goog-api-key', async () => {
    const response = await post(
      { agent: 'scripted', input: 'x', environment: 'remote' },
      { 'x-goog-api-key': '', authorization: `Bearer ${KEY}` },
    );
    expect(response.statusCode).toBe(200);
  });

  it('healthz and openapi.json need no key', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toMatchObject({
      status: 'ok',
    });
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      openapi: string;
    }>();
    expect(document.openapi).toBe('3.1.0');
  });
});

describe('interactions over HTTP', () => {
  it('the answer is an Interaction the schema accepts; GET returns it again', async () => {
    const response = await post(scripted(SECURITY_GATE_REQUEST, codeCall('rm -rf /tmp/forbidden')));
    expect(response.statusCode).toBe(200);
    const interaction = interactionSchema.parse(response.json());
    expect(interaction.steps[2]).toMatchObject({
      type: 'code_execution_result',
      is_error: true,
      result: 'no rm -rf here',
    });
    const again = await app.inject({
      method: 'GET',
      url: `/v1beta/interactions/${interaction.id}`,
      headers: { 'x-goog-api-key': KEY },
    });
    expect(again.json()).toEqual(interaction);
  });

  it('stream: true gives server-sent events, steps then the final Interaction', async () => {
    const response = await post({
      ...scripted(SECURITY_GATE_REQUEST, codeCall('ls')),
      stream: true,
    });
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const frames = response.body.trim().split('\n\n');
    expect(frames.map((frame) => frame.split('\n')[0])).toEqual([
      'event: interaction.created',
      ...Array<string[]>(3).fill(['event: step.start', 'event: step.stop']).flat(),
      'event: interaction.status_update',
      'event: interaction.completed',
    ]);
    const last = JSON.parse(frames.at(-1)!.split('\n')[1]!.slice('data: '.length)) as {
      interaction: { status: string };
    };
    expect(last.interaction.status).toBe('completed');
  });
});

describe('the TypeScript client', () => {
  it('creates, streams, gets, and reads environments', async () => {
    const hookbox = new Hookbox({ baseUrl, apiKey: KEY });
    const interaction = await hookbox.interactions.create(
      scripted(SECURITY_GATE_REQUEST, codeCall('ls')),
    );
    expect(interaction.status).toBe('completed');
    expect(await hookbox.interactions.get(interaction.id)).toEqual(interaction);
    const events: InteractionEvent[] = [];
    for await (const event of await hookbox.interactions.create({
      ...scripted(SECURITY_GATE_REQUEST, codeCall('ls')),
      stream: true,
    }))
      events.push(event);
    expect(events.map((e) => e.event_type)).toEqual([
      'interaction.created',
      ...Array<string[]>(3).fill(['step.start', 'step.stop']).flat(),
      'interaction.status_update',
      'interaction.completed',
    ]);
    // Every event has its own id, to resume after (docs/gemini-sdks.md, "Streaming").
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    const environment = await hookbox.environments.get(interaction.environment_id);
    expect(environment).toMatchObject({
      id: interaction.environment_id,
      environment_id: interaction.environment_id,
      status: 'active',
      busy: false,
    });
    expect((await hookbox.environments.list()).environments).toContainEqual(
      expect.objectContaining({
        id: interaction.environment_id,
        environment_id: interaction.environment_id,
        type: 'remote',
        status: 'active',
        tenant: expect.stringMatching(/^key-[0-9a-f]{8}$/) as string,
      }),
    );
    await hookbox.environments.delete(interaction.environment_id);
    await expect(hookbox.environments.get(interaction.environment_id)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('throws HookboxApiError with status, code and field', async () => {
    const hookbox = new Hookbox({ baseUrl, apiKey: KEY });
    const error = await hookbox.interactions
      .create({
        agent: 'scripted',
        input: 'x',
        environment: 'remote',
        tools: [{ type: 'url_context' }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookboxApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'unsupported',
      details: { field: 'tools[0].type' },
    });
    const noKey = await new Hookbox({ baseUrl }).interactions.get('int_x').catch((e: unknown) => e);
    expect(noKey).toMatchObject({ status: 401, code: 'unauthenticated' });
    const down = await new Hookbox({ baseUrl: 'http://127.0.0.1:1' }).interactions
      .get('x')
      .catch((e: unknown) => e);
    expect(down).toMatchObject({ status: 0, code: 'unavailable' });
  });
});

describe('API keys', () => {
  it('come from HOOKBOX_API_KEYS and a file; a bad file is a clear error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-keys-'));
    const file = join(dir, 'keys');
    writeFileSync(file, '# keys\nfile-key-0001\n\nfile-key-0002\n');
    const keys = loadTenantKeys({
      env: { HOOKBOX_API_KEYS: 'env-key-0001, env-key-0002' },
      file,
    });
    const table = new KeyTable(keys);
    expect(keys).toHaveLength(4);
    for (const key of ['env-key-0001', 'env-key-0002', 'file-key-0001', 'file-key-0002'])
      expect(table.find(key)).toBeDefined();
    expect(() => loadTenantKeys({ env: {}, file: join(dir, 'missing') })).toThrow(
      /^--api-keys-file: cannot read/,
    );
    writeFileSync(file, '# nothing\n');
    expect(() => loadTenantKeys({ env: {}, file })).toThrow(/holds no key/);
    expect(() => loadTenantKeys({ env: { HOOKBOX_API_KEYS: 'short' } })).toThrow(/at least 8/);
  });

  it('no key: only loopback', () => {
    expect(() => checkListenSafety('0.0.0.0', [])).toThrow(/refusing to listen beyond loopback/);
    expect(() => checkListenSafety('0.0.0.0', ['a-key-1234'])).not.toThrow();
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.1', 'example.com'])
      expect(isLoopbackHost(host)).toBe(false);
  });

  it('are compared whole, from either header', () => {
    const checker = new KeyTable(
      loadTenantKeys({ env: { HOOKBOX_API_KEYS: 'key-number-one,key-number-two' } }),
    );
    expect(checker.find('key-number-two')).toBeDefined();
    expect(checker.find('key-number-tw')).toBeUndefined();
    expect(checker.find(undefined)).toBeUndefined();
    expect(requestKey({ authorization: 'Bearer  abc ' })).toBe('abc');
    expect(requestKey({ authorization: 'Basic abc' })).toBeUndefined();
    expect(new KeyTable([]).open).toBe(true);
  });
});

describe('the OpenAPI document', () => {
  it('is generated from the request and response schemas', () => {
    const document = openApiDocument({ version: '1', bodyLimit: 1 }) as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1beta/interactions',
        '/v1beta/interactions/{id}',
        '/v1beta/environments/{id}',
      ]),
    );
    expect(Object.keys(document.components.schemas.InteractionRequest!.properties!)).toEqual([
      'agent',
      'input',
      'tools',
      'environment',
      'previous_interaction_id',
      'stream',
      'system_instruction',
      'background',
      'store',
      'labels',
    ]);
    expect(JSON.stringify(document)).not.toContain('$schema');
  });
});
