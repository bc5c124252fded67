// `environment.sandbox.runtime` in the HTTP API: a new environment on gVisor; a bad name or a
// sandbox for an existing environment is a 400 naming the field, and so is a runtime the engine
// does not know (docs/gvisor.md).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { UserError } from '../../src/errors/index.js';
import { LABEL_CONTROLLER } from '../../src/sandbox/labels.js';
import { apiErrorOf } from './api-error.js';

const KEY = 'runtime-test-key';
let server: RunningServer;

beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-api-runtime-')),
    logger,
    startEngine: false,
  });
  server = await startServer({ host: '127.0.0.1', port: 0, apiKeys: [KEY], logger, controller });
});
afterAll(async () => {
  await server?.close();
});

type Answer = {
  status?: string;
  environment_id?: string;
  steps?: unknown;
  error?: { details?: { field?: string } };
};

async function post(body: unknown): Promise<{ status: number; json: Answer }> {
  const response = await fetch(`${server.url}/v1beta/interactions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Answer };
}

const unameCall = {
  agent: 'scripted',
  input: [{ type: 'code_execution_call', arguments: { code: 'uname -r', language: 'bash' } }],
};

describe('environment.sandbox.runtime', () => {
  it('"runsc" makes the environment on gVisor; an existing one cannot be given a sandbox', async () => {
    const made = await post({
      ...unameCall,
      environment: { type: 'remote', sandbox: { runtime: 'runsc' } },
    });
    expect(made.status).toBe(200);
    expect(made.json.status).toBe('completed');
    expect(JSON.stringify(made.json.steps)).toContain('4.4.0');
    const again = await post({
      ...unameCall,
      environment: {
        type: 'remote',
        environment_id: made.json.environment_id,
        sandbox: { runtime: 'runc' },
      },
    });
    expect(again.status).toBe(400);
    expect(apiErrorOf(again.json).field).toBe('environment.sandbox');
    await fetch(`${server.url}/v1beta/environments/${made.json.environment_id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${KEY}` },
    });
  });

  it('a bad runtime name is a 400 naming environment.sandbox.runtime', async () => {
    const bad = await post({
      ...unameCall,
      environment: { type: 'remote', sandbox: { runtime: 'Not A Runtime' } },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('environment.sandbox.runtime');
  });

  it('a runtime the engine does not know is a 400 listing the ones it has, and makes nothing', async () => {
    const { controller } = server.service;
    const mine = () =>
      controller.client.listContainers([`${LABEL_CONTROLLER}=${controller.identity.id}`]);
    const before = await mine();
    const unknown = await post({
      ...unameCall,
      environment: { type: 'remote', sandbox: { runtime: 'runsc-nope' } },
    });
    expect(unknown.status).toBe(400);
    const error = apiErrorOf(unknown.json);
    expect(error.code).toBe('invalid_argument');
    expect(error.field).toBe('environment.sandbox.runtime');
    expect(error.message).toContain('"runsc-nope"');
    expect(error.message).toContain('"runc"');
    expect((await mine()).length).toBe(before.length);
    // The library says the same, naming its own field.
    const refused = await controller.createEnvironment({ sandbox: { runtime: 'runsc-nope' } }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).details.field).toBe('sandbox.runtime');
  });
});
