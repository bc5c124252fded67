// `hookbox serve` in this process (port 0) against real containers: every bad request is a 4xx with
// a JSON error naming the field, and leaves nothing behind. The server: server-helpers.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeCall, scripted, SECURITY_GATE_REQUEST } from '../unit/interactions/gemini-requests.js';
import { ownResources } from './cli-helpers.js';
import { call, closeSharedServer, KEY, server, startSharedServer } from './server-helpers.js';
import { apiErrorOf } from './api-error.js';

beforeAll(startSharedServer);
afterAll(closeSharedServer);

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
    const error = apiErrorOf(answer.json);
    expect(error).toMatchObject({ httpStatus: status, code, field });
    expect(error.message.startsWith(field)).toBe(true);
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
