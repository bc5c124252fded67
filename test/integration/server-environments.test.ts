// `hookbox serve` in this process (port 0) against real containers: environments (shown, updated,
// deleted), expiry, shutdown, and refusing to listen beyond loopback without a key. The server:
// server-helpers.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/index.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { startServer } from '../../src/server/index.js';
import { codeCall, scripted, SECURITY_GATE_REQUEST } from '../unit/interactions/gemini-requests.js';
import {
  call,
  closeSharedServer,
  create,
  KEY,
  resourcesOf,
  server,
  serverWith,
  startSharedServer,
} from './server-helpers.js';
import { apiErrorOf } from './api-error.js';
import type { EnvironmentBody } from './api-helpers.js';

beforeAll(startSharedServer);
afterAll(closeSharedServer);

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
      status: 'active',
      busy: false,
      hook_groups: ['security-gate'],
    });
    expect(Date.parse((info.json as EnvironmentBody).expires_at) - Date.now()).toBeGreaterThan(
      25 * 60_000,
    );

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
      structured_result: { exit_code: 0, stdout: 'two' },
    });
    expect(
      ((await call('GET', `/v1beta/environments/${id}`)).json as EnvironmentBody).hook_groups,
    ).toEqual(['audit']);

    const before = await resourcesOf(server);
    expect((await call('DELETE', `/v1beta/environments/${id}`)).status).toBe(200);
    expect(await resourcesOf(server)).toEqual({
      containers: before.containers - 1,
      volumes: before.volumes - 2,
      disks: before.disks - 1,
    });
    const gone = await call('GET', `/v1beta/environments/${id}`);
    expect(gone.status).toBe(404);
    expect(apiErrorOf(gone.json).message).toContain('deleted');
    const reuse = await call('POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: 'x',
      environment: id,
    });
    expect(reuse.status).toBe(404);
    expect(apiErrorOf(reuse.json).field).toBe('environment');
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
    expect(interaction.steps[1]).toMatchObject({ structured_result: { stdout: 'finished\n' } });
    expect(await resourcesOf(other)).toEqual({ containers: 0, volumes: 0, disks: 0 });
    await expect(fetch(`${other.url}/healthz`)).rejects.toThrow();
  });

  it('refuses to start beyond loopback without a key', async () => {
    await expect(startServer({ host: '0.0.0.0', port: 0, apiKeys: [] })).rejects.toBeInstanceOf(
      UserError,
    );
  });
});
