// `hookbox serve` ends on one SIGTERM, with exit 0, in bounded time, in every configuration — also
// while an environment has a network, whose egress proxy runs in the server's process
// (docs/operations.md, "Stopping"). A durable server says it leaves its environments running, and
// does; `--no-state` says it deletes them, and does. Real `hookbox serve` processes, real containers.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { Hookbox } from '../../src/client/index.js';
import { reapOrphans } from '../../src/controller/reaper.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { LABEL_ENVIRONMENT } from '../../src/sandbox/labels.js';

const KEY = 'sigterm-test-key';
/** Far above what a stop takes here (about a second); only a server that never ends reaches it. */
const NO_EXIT_AFTER_MS = 60_000;
const docker = new DockerContainerClient(createLogger({ level: 'silent' }));
const children: ChildProcess[] = [];
const made: string[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  // What the durable server left running on purpose, removed as orphans are: containers with their
  // workspace disks, volumes, networks (docs/operations.md, Orphans).
  await reapOrphans(docker, (labels) => made.includes(labels[LABEL_ENVIRONMENT] ?? ''));
});

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function serve(port: number, extra: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'hookbox-sigterm-'));
  const child = spawn(
    'node',
    [resolve('bin/hookbox.js'), 'serve', '--port', String(port), ...extra],
    {
      env: { ...process.env, HOOKBOX_API_KEYS: KEY, HOOKBOX_HOME: home, HOOKBOX_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  const lines: string[] = [];
  await new Promise<void>((done, fail) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      lines.push(line);
      if (line.includes('listening on')) done();
    });
    child.once('exit', (code) =>
      fail(new Error(`hookbox serve exited ${code}: ${lines.join('\n')}`)),
    );
  });
  return { child, lines };
}

/** SIGTERM once; the exit code, or 'still running' if it has not ended well after it should. */
async function terminate(child: ChildProcess): Promise<number | null | 'still running'> {
  child.kill('SIGTERM');
  return new Promise((done) => {
    const timer = setTimeout(() => done('still running'), NO_EXIT_AFTER_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
}

/** A completed interaction in a new environment with a network (its egress proxy in the server). */
async function networkedEnvironment(client: Hookbox): Promise<string> {
  const done = await client.interactions.create({
    agent: 'scripted',
    input: [{ type: 'code_execution_call', arguments: { code: 'echo up', language: 'bash' } }],
    environment: { type: 'remote', network: { allowlist: [{ domain: 'allowed.hookbox.test' }] } },
  });
  expect(done.status).toBe('completed');
  made.push(done.environment_id);
  return done.environment_id;
}

const running = async (id: string) =>
  (await docker.listContainers([`${LABEL_ENVIRONMENT}=${id}`])).length;

describe('hookbox serve on SIGTERM', () => {
  it('durable, with a networked environment: exits 0 at once, says it keeps the environments, keeps them', async () => {
    const port = await freePort();
    const { child, lines } = await serve(port, []);
    const id = await networkedEnvironment(
      new Hookbox({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY }),
    );
    expect(await terminate(child)).toBe(0);
    const said = lines.join('\n');
    expect(said).toContain('leaving the environments running');
    expect(said).not.toMatch(/deleting/);
    expect(said).toContain('hookbox serve: stopped');
    // The sandbox and its relay are still there for the next server.
    expect(await running(id)).toBe(2);
  });

  it('--no-state, with a networked environment: exits 0 and deletes what it made, as it says', async () => {
    const port = await freePort();
    const { child, lines } = await serve(port, ['--no-state']);
    const id = await networkedEnvironment(
      new Hookbox({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY }),
    );
    expect(await terminate(child)).toBe(0);
    expect(lines.join('\n')).toContain('then deleting the environments');
    expect(await running(id)).toBe(0);
  });

  it('--shutdown-grace is checked like every number (exit 2 naming it)', async () => {
    const child = spawn(
      'node',
      [resolve('bin/hookbox.js'), 'serve', '--port', '0', '--shutdown-grace', 'soon'],
      { env: { ...process.env, HOOKBOX_API_KEYS: KEY }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((done) => child.once('exit', done));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--shutdown-grace: must be a whole number/);
  });
});
