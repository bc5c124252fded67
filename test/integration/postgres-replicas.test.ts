// Two `hookbox serve` replicas on one PostgreSQL (real engine, real server): an interaction made on
// one is read on the other; a call for an environment made by replica A succeeds through replica B;
// after `kill -9` of A, B still serves A's environments (docs/kubernetes.md, Several replicas).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookbox } from '../../src/client/index.js';
import { freePort } from './postgres.js';
import { startReplicas, type Replicas } from './replicas.js';

const KEY = 'replicas-test-key';
let replicas: Replicas;

beforeAll(async () => {
  replicas = await startReplicas(KEY);
});
afterAll(async () => {
  await replicas?.stop();
});

const serve = (port: number) => replicas.serve(port);

const readFile = (path: string) => ({
  agent: 'scripted' as const,
  input: [{ type: 'tool_call' as const, name: 'read_file', arguments: { path } }],
});

describe('two hookbox serve replicas on one PostgreSQL', () => {
  it('share interactions and environments, and B serves A’s environments after kill -9 of A', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await serve(portA);
    const b = await serve(portB);
    const clientA = new Hookbox({ baseUrl: `http://127.0.0.1:${portA}`, apiKey: KEY });
    const clientB = new Hookbox({ baseUrl: `http://127.0.0.1:${portB}`, apiKey: KEY });

    // Made on A.
    const made = await clientA.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'tool_call',
          name: 'write_file',
          arguments: { path: 'from-a.txt', content: 'written through A' },
        },
      ],
      environment: 'remote',
    });
    expect(made.status).toBe('completed');
    const environmentId = made.environment_id;

    // Read on B.
    expect(await clientB.interactions.get(made.id)).toMatchObject({
      id: made.id,
      status: 'completed',
      environment_id: environmentId,
    });
    expect((await clientB.environments.get(environmentId)).environment_id).toBe(environmentId);

    // A call in A's environment, through B, continuing A's interaction.
    const throughB = await clientB.interactions.create({
      ...readFile('from-a.txt'),
      environment: environmentId,
      previous_interaction_id: made.id,
    });
    expect(throughB.status).toBe('completed');
    expect(JSON.stringify(throughB.steps)).toContain('written through A');
    // And A still serves it too, and sees B's interaction.
    const backOnA = await clientA.interactions.create({
      agent: 'scripted',
      input: [{ type: 'code_execution_call', arguments: { code: 'echo again', language: 'bash' } }],
      environment: environmentId,
    });
    expect(JSON.stringify(backOnA.steps)).toContain('again');
    expect((await clientA.interactions.get(throughB.id)).status).toBe('completed');

    // kill -9 of A: B keeps serving A's environment, workspace intact.
    a.kill('SIGKILL');
    await new Promise((wait) => a.once('exit', wait));
    const afterKill = await clientB.interactions.create({
      ...readFile('from-a.txt'),
      environment: environmentId,
    });
    expect(afterKill.status).toBe('completed');
    expect(JSON.stringify(afterKill.steps)).toContain('written through A');
    expect((await clientB.interactions.get(made.id)).status).toBe('completed');

    await clientB.environments.delete(environmentId);
    await expect(clientB.environments.get(environmentId)).rejects.toThrow(/no environment/);
    b.kill('SIGTERM');
    await new Promise((wait) => b.once('exit', wait));
  });
});
