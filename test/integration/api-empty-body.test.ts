// Real clients send `Content-Type: application/json` on every request: a GET or DELETE with that
// header and no body is served, not refused as an empty JSON body.
import { describe, expect, it } from 'vitest';
import {
  fetchJson,
  scriptedRequest,
  useServer,
  type EnvironmentBody,
  type InteractionBody,
} from './api-helpers.js';
import { apiErrorOf } from './api-error.js';

const server = useServer();

describe('GET and DELETE with Content-Type: application/json and an empty body', () => {
  it('are served like any GET or DELETE', async () => {
    const made = await fetchJson(
      server(),
      'POST',
      '/v1beta/interactions',
      scriptedRequest([
        { type: 'code_execution_call', arguments: { code: 'echo hi', language: 'bash' } },
      ]),
    );
    expect(made.status, made.text).toBe(200);
    const id = (made.json as InteractionBody).environment_id;
    const json = { 'content-type': 'application/json' };

    const got = await fetchJson(server(), 'GET', `/v1beta/environments/${id}`, undefined, json);
    expect(got.status, got.text).toBe(200);
    expect((got.json as EnvironmentBody).environment_id).toBe(id);
    const interaction = await fetchJson(
      server(),
      'GET',
      `/v1beta/interactions/${(made.json as InteractionBody).id}`,
      undefined,
      json,
    );
    expect(interaction.status, interaction.text).toBe(200);
    const list = await fetchJson(server(), 'GET', '/v1beta/environments', undefined, json);
    expect(list.status, list.text).toBe(200);

    const deleted = await fetchJson(
      server(),
      'DELETE',
      `/v1beta/environments/${id}`,
      undefined,
      json,
    );
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toEqual({});
    const gone = await fetchJson(server(), 'GET', `/v1beta/environments/${id}`, undefined, json);
    expect(gone.status).toBe(404);
    expect(apiErrorOf(gone.json).code).toBe('not_found');
  });

  it('a POST with an empty body is still refused, naming the body', async () => {
    const answer = await fetchJson(server(), 'POST', '/v1beta/interactions', '');
    expect(answer.status).toBe(400);
    expect(apiErrorOf(answer.json)).toMatchObject({ code: 'invalid_argument', field: 'body' });
  });
});
