// An environment whose container was killed from outside is listed with its real state, `lost`,
// and why — not `idle`.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fetchJson, useServer, type EnvironmentBody, type InteractionBody } from './api-helpers.js';

const server = useServer();

describe('an environment whose container was killed from outside', () => {
  it('GET and the list say "lost", with what became of the container', async () => {
    const made = await fetchJson(server(), 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [{ type: 'code_execution_call', arguments: { code: 'echo hi' } }],
      environment: 'remote',
    });
    expect(made.status, made.text).toBe(200);
    const id = (made.json as InteractionBody).environment_id;
    const before = await fetchJson(server(), 'GET', `/v1beta/environments/${id}`);
    expect(before.json).toMatchObject({ status: 'active', busy: false });

    const environment = server().service.controller.getEnvironment(id);
    execFileSync('docker', ['kill', environment.sandbox.containerId]);

    const after = await fetchJson(server(), 'GET', `/v1beta/environments/${id}`);
    expect(after.status, after.text).toBe(200);
    expect((after.json as EnvironmentBody).status).toBe('lost');
    expect((after.json as EnvironmentBody).lost_reason).toMatch(/exited|gone/);
    const list = await fetchJson(server(), 'GET', '/v1beta/environments');
    expect((list.json as { environments: EnvironmentBody[] }).environments).toContainEqual(
      expect.objectContaining({ environment_id: id, type: 'remote', status: 'lost' }),
    );
    // Deleting it still works and removes what is left.
    const deleted = await fetchJson(server(), 'DELETE', `/v1beta/environments/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
  });
});
