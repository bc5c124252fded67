// `hookbox serve` is durable by default: its state lives in $HOOKBOX_HOME/state.db, so a kill -9
// loses nothing; `--no-state` keeps it in memory only; a second server on the same state file is
// refused; environments re-attached from the state file expire like any other.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { Hookbox, HookboxApiError } from '../../src/client/index.js';

const KEY = 'durable-default-key';
const children: ChildProcess[] = [];
afterAll(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Starts `hookbox serve` with only a port (and `extra`); resolves with its stderr so far on exit or readiness. */
async function serve(
  home: string,
  port: number,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; ready: boolean; stderr: string }> {
  const child = spawn(
    'node',
    [resolve('bin/hookbox.js'), 'serve', '--port', String(port), ...extra],
    {
      env: {
        ...process.env,
        HOOKBOX_API_KEYS: KEY,
        HOOKBOX_HOME: home,
        HOOKBOX_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  return new Promise((done) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      stderr += line + '\n';
      if (line.includes('listening on')) done({ child, ready: true, stderr });
    });
    child.once('exit', () => done({ child, ready: false, stderr }));
  });
}

const stop = async (child: ChildProcess, signal: NodeJS.Signals) => {
  if (child.exitCode !== null) return;
  child.kill(signal);
  await new Promise((wait) => child.once('exit', wait));
};

describe('hookbox serve keeps its state in $HOOKBOX_HOME/state.db by default', () => {
  it('a kill -9 loses nothing; a second server on the same file is refused; re-attached environments expire', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-durable-'));
    const port = await freePort();
    const client = new Hookbox({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY });
    const first = await serve(home, port);
    expect(first.ready, first.stderr).toBe(true);
    expect(first.stderr).toContain(join(home, 'state.db'));
    expect(existsSync(join(home, 'state.db'))).toBe(true);

    const done = await client.interactions.create({
      agent: 'scripted',
      input: [
        { type: 'tool_call', name: 'write_file', arguments: { path: 'kept.txt', content: 'ok' } },
      ],
      environment: 'remote',
    });
    expect(done.status).toBe('completed');

    // Another server on the same home: refused, naming the way out.
    const second = await serve(home, await freePort());
    expect(second.ready).toBe(false);
    expect(second.child.exitCode).toBe(2);
    expect(second.stderr).toMatch(/in use by another hookbox controller.*--no-state/);

    await stop(first.child, 'SIGKILL');
    // Restarted with a short TTL: the environment is back, with its workspace, then expires.
    const again = await serve(home, port, [], { HOOKBOX_ENVIRONMENT_TTL_MS: '4000' });
    expect(again.ready, again.stderr).toBe(true);
    try {
      expect((await client.interactions.get(done.id)).status).toBe('completed');
      const info = await client.environments.get(done.environment_id);
      expect(info).toMatchObject({ status: 'active', busy: false });
      let gone: unknown;
      for (let i = 0; i < 40 && !gone; i++) {
        await new Promise((wait) => setTimeout(wait, 500));
        gone = await client.environments
          .get(done.environment_id)
          .then(() => undefined)
          .catch((error: unknown) => error);
      }
      expect(gone).toBeInstanceOf(HookboxApiError);
      expect((gone as HookboxApiError).status).toBe(404);
      expect((gone as HookboxApiError).message).toContain('expired');
    } finally {
      await stop(again.child, 'SIGTERM');
    }
  });

  it('--no-state keeps everything in memory: no state file is written', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-durable-'));
    const port = await freePort();
    const server = await serve(home, port, ['--no-state']);
    expect(server.ready, server.stderr).toBe(true);
    expect(server.stderr).toContain('in memory only');
    await stop(server.child, 'SIGTERM');
    expect(existsSync(join(home, 'state.db'))).toBe(false);
  });

  it('--state-file with --no-state is exit 2', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-durable-'));
    const server = await serve(home, await freePort(), [
      '--no-state',
      '--state-file',
      join(home, 'x.db'),
    ]);
    expect(server.ready).toBe(false);
    expect(server.child.exitCode).toBe(2);
    expect(server.stderr).toContain('--no-state');
  });
});
