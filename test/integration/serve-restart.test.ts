import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { Hookbox } from '../../src/client/index.js';
import { auditLogPath, readAuditLog } from '../../src/record/audit-log.js';

const KEY = 'restart-test-key';
const children: ChildProcess[] = [];
afterAll(() => children.forEach((child) => child.kill('SIGKILL')));

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function serve(stateFile: string, home: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    'node',
    [resolve('bin/hookbox.js'), 'serve', '--port', String(port), '--state-file', stateFile],
    {
      env: { ...process.env, HOOKBOX_API_KEYS: KEY, HOOKBOX_HOME: home, HOOKBOX_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  await new Promise<void>((done, fail) => {
    createInterface({ input: child.stderr }).on(
      'line',
      (line) => line.includes('listening on') && done(),
    );
    child.once('exit', (code) => fail(new Error(`hookbox serve exited ${code}`)));
  });
  return child;
}

describe('hookbox serve --state-file: kill -9 mid-interaction, then restart', () => {
  it('re-attaches environments with their workspace, keeps stored interactions, marks the interrupted one failed, keeps the audit log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-serve-restart-'));
    const stateFile = join(dir, 'state.sqlite');
    const port = await freePort();
    const client = new Hookbox({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY });
    const first = await serve(stateFile, dir, port);

    const done = await client.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'tool_call',
          name: 'write_file',
          arguments: { path: 'kept.txt', content: 'survives' },
        },
      ],
      environment: 'remote',
    });
    expect(done.status).toBe('completed');
    const environmentId = done.environment_id;
    const before = readAuditLog(auditLogPath(dir, environmentId));
    expect(before.some((entry) => entry.kind === 'tool_call')).toBe(true);

    // An interaction still running when the controller dies.
    const stream = await client.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'code_execution_call',
          arguments: { code: 'echo running; sleep 20', language: 'bash' },
        },
      ],
      environment: environmentId,
      previous_interaction_id: done.id,
      stream: true,
    });
    let runningId: string | undefined;
    for await (const event of stream) {
      if (event.event_type === 'interaction.created') runningId = event.interaction.id;
      // The code's first output, streamed live: the call runs in the sandbox now.
      if (event.event_type === 'step.delta') break;
    }
    expect(runningId).toBeTruthy();
    first.kill('SIGKILL');
    await new Promise((wait) => first.once('exit', wait));

    const second = await serve(stateFile, dir, port);
    try {
      const stored = await client.interactions.get(done.id);
      expect(stored).toMatchObject({ id: done.id, status: 'completed' });
      const interrupted = await client.interactions.get(runningId!);
      expect(interrupted.status).toBe('failed');
      expect(interrupted.error?.message).toMatch(/controller stopped/);
      expect((await client.environments.get(environmentId)).environment_id).toBe(environmentId);
      const again = await client.interactions.create({
        agent: 'scripted',
        input: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'kept.txt' } }],
        environment: environmentId,
      });
      expect(JSON.stringify(again.steps)).toContain('survives');
      const after = readAuditLog(auditLogPath(dir, environmentId));
      expect(after.slice(0, before.length)).toEqual(before);
      await client.environments.delete(environmentId);
    } finally {
      second.kill('SIGTERM');
      await new Promise((wait) => second.once('exit', wait));
    }
  });
});
