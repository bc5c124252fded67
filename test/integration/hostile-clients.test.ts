// Hostile clients against a real `hookbox serve` child process (loopback only): slow unkeyed
// connections, a DNS-rebinding Host, and a streaming client that never reads 100 × 1 MiB of output.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { LABEL_CONTROLLER_PID, LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { createLogger } from '../../src/record/logger.js';

const KEY = 'hostile-test-key';
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  }
});

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Starts `hookbox serve` (the compiled CLI) with an open-file limit, as an operator would. */
async function serve(
  args: string[],
  env: Record<string, string>,
  openFiles = 4096,
): Promise<{ child: ChildProcess; port: number; url: string; log: string[] }> {
  const port = await freePort();
  const child = spawn(
    'prlimit',
    [
      `--nofile=${openFiles}:${openFiles}`,
      'node',
      resolve('bin/hookbox.js'),
      'serve',
      '--port',
      String(port),
      // Memory only: a durable server leaves its environments to its state file on SIGTERM.
      '--no-state',
      ...args,
    ],
    {
      env: {
        ...process.env,
        HOOKBOX_HOME: mkdtempSync(join(tmpdir(), 'hookbox-hostile-')),
        HOOKBOX_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  const log: string[] = [];
  await new Promise<void>((done, fail) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      log.push(line);
      if (line.includes('listening on')) done();
    });
    child.once('exit', (code) => fail(new Error(`hookbox serve exited ${code}`)));
  });
  return { child, port, url: `http://127.0.0.1:${port}`, log };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
}

/** This process needs a descriptor per attacking socket: raise its soft limit to its hard one. */
function raiseOwnFileLimit(wanted: number): void {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const [, soft, hard] = /^Max open files\s+(\d+)\s+(\d+)/m.exec(limits) ?? [];
  if (Number(soft) >= wanted) return;
  const value = Math.max(wanted, Number(hard));
  execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${value}:${value}`]);
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const keyed = (url: string, path: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, {
    ...init,
    headers: {
      'x-goog-api-key': KEY,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
  });

describe('slow unkeyed connections', () => {
  it('keyed requests keep being served while 5,000 unkeyed connections trickle a body a byte at a time', async () => {
    const ATTACKERS = 5000;
    raiseOwnFileLimit(ATTACKERS + 1024);
    // The server may hold 4,096 descriptors: fewer than the attack's connections.
    const { child, port, url } = await serve([], { HOOKBOX_API_KEYS: KEY }, 4096);
    const sockets: Socket[] = [];
    let answered401 = 0;
    const trickle = setInterval(() => {
      for (const socket of sockets)
        if (!socket.destroyed && socket.writable) {
          socket.write('{');
        }
    }, 1000);
    try {
      // 20 client addresses (127.0.0.2–21), 250 connections each: within the per-address limit, so
      // what protects the server is answering them without reading their bodies.
      const opened: Promise<void>[] = [];
      for (let i = 0; i < ATTACKERS; i++) {
        opened.push(
          new Promise<void>((done) => {
            const socket = connect({
              host: '127.0.0.1',
              port,
              localAddress: `127.0.0.${2 + (i % 20)}`,
            });
            sockets.push(socket);
            socket.setNoDelay(true);
            socket.on('error', () => done());
            socket.on('end', () => socket.destroy());
            socket.on('close', () => done());
            socket.once('data', (data) => {
              if (data.toString().startsWith('HTTP/1.1 401')) answered401 += 1;
            });
            socket.once('connect', () => {
              socket.write(
                `POST /v1beta/interactions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`,
              );
              done();
            });
          }),
        );
        if (i % 500 === 499) await Promise.all(opened.slice(-500));
      }
      await Promise.all(opened);
      // Keyed requests, from 127.0.0.1, while the attack goes on: all served, one runs real code.
      for (let i = 0; i < 20; i++) {
        const response = await keyed(url, '/v1beta/environments');
        expect(response.status).toBe(200);
      }
      const created = await keyed(url, '/v1beta/interactions', {
        method: 'POST',
        body: JSON.stringify({
          agent: 'scripted',
          input: [
            { type: 'code_execution_call', arguments: { code: 'echo served', language: 'bash' } },
          ],
          environment: 'remote',
        }),
      });
      expect(created.status, await created.clone().text()).toBe(200);
      const interaction = (await created.json()) as {
        environment_id: string;
        steps: { structured_result?: { stdout?: string } }[];
      };
      expect(interaction.steps.at(-1)?.structured_result?.stdout).toBe('served\n');
      expect(
        (
          await keyed(url, `/v1beta/environments/${interaction.environment_id}`, {
            method: 'DELETE',
          })
        ).status,
      ).toBe(200);
      // Each attacker was answered 401 after its headers and closed, or (past the connection
      // ceiling, sized from the server's 4,096 descriptors) closed at once: none is left holding a
      // descriptor, though each kept trickling its body.
      for (let waited = 0; waited < 100 && sockets.some((s) => !s.destroyed); waited++)
        await new Promise((done) => setTimeout(done, 100));
      expect(sockets.filter((socket) => !socket.destroyed)).toHaveLength(0);
      expect(answered401).toBeGreaterThan(ATTACKERS / 5);
      expect(child.exitCode).toBeNull();
    } finally {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
      await stop(child);
    }
  });

  it('one address holds at most --max-connections-per-address connections; others still get in', async () => {
    const { child, port, url } = await serve(['--max-connections-per-address', '50'], {
      HOOKBOX_API_KEYS: KEY,
    });
    const sockets: Socket[] = [];
    try {
      // Headers that never end, from one address: the first 50 are held (until the headers
      // timeout), the rest closed at once.
      const closedEarly = await Promise.all(
        Array.from(
          { length: 80 },
          () =>
            new Promise<boolean>((done) => {
              const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.30' });
              sockets.push(socket);
              socket.on('error', () => {});
              socket.once('connect', () => socket.write('GET /v1beta/environments HTTP/1.1\r\n'));
              socket.once('close', () => done(true));
              setTimeout(() => done(false), 1500);
            }),
        ),
      );
      expect(closedEarly.filter(Boolean).length).toBe(30);
      const response = await keyed(url, '/v1beta/environments');
      expect(response.status).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
      await stop(child);
    }
  });
});

describe('DNS rebinding', () => {
  it('a keyless server refuses a Host that is not a loopback name, and makes nothing', async () => {
    const { child, url, port } = await serve(['--allowed-hosts', 'hookbox.internal'], {
      HOOKBOX_API_KEYS: '',
    });
    try {
      const body = JSON.stringify({
        agent: 'scripted',
        input: [{ type: 'code_execution_call', arguments: { code: 'echo rebound' } }],
        environment: 'remote',
      });
      // fetch will not send a forged Host; a raw request does what a rebinding browser's would.
      const raw = (host: string, method = 'POST', path = '/v1beta/interactions') =>
        new Promise<string>((done, fail) => {
          const socket = connect({ host: '127.0.0.1', port });
          let text = '';
          socket.on('data', (data) => (text += data.toString()));
          socket.on('end', () => done(text));
          socket.on('error', fail);
          const payload = method === 'POST' ? body : '';
          socket.write(
            `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
          );
        });
      for (const host of [
        `evil.example:${port}`,
        'evil.example',
        `127.0.0.1.evil.example:${port}`,
      ]) {
        const answer = await raw(host);
        expect(answer, host).toMatch(/^HTTP\/1\.1 403/);
        expect(answer, host).toContain('"status":"PERMISSION_DENIED"');
        expect(answer, host).toContain('"reason":"permission_denied"');
        expect(answer, host).toContain('"field":"host"');
      }
      const docker = new DockerContainerClient(createLogger({ level: 'silent' }));
      expect(
        await docker.listContainers([
          `${LABEL_MANAGED}=true`,
          `${LABEL_CONTROLLER_PID}=${child.pid}`,
        ]),
      ).toEqual([]);
      for (const host of [
        `localhost:${port}`,
        `127.0.0.1:${port}`,
        `[::1]:${port}`,
        'hookbox.internal',
      ])
        expect(await raw(host, 'GET', '/v1beta/environments'), host).toMatch(/^HTTP\/1\.1 200/);
      expect((await fetch(`${url}/v1beta/environments`)).status).toBe(200);
    } finally {
      await stop(child);
    }
  });
});

describe('output and memory', () => {
  it('server RSS stays within 350 MiB of its start for a streamed interaction of 100 × 1 MiB outputs whose client never reads', async () => {
    const { child, port, url, log } = await serve([], { HOOKBOX_API_KEYS: KEY });
    const baseline = rssMiB(child.pid!);
    const calls = Array.from({ length: 100 }, () => ({
      type: 'code_execution_call',
      arguments: { code: "head -c 1048000 /dev/zero | tr '\\0' x" },
    }));
    const body = JSON.stringify({
      agent: 'scripted',
      input: calls,
      environment: 'remote',
      stream: true,
    });
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => {});
    // Read only up to the first event (it names the interaction), then never again.
    const first = await new Promise<string>((done) => {
      let text = '';
      const onData = (data: Buffer) => {
        text += data.toString();
        const match = /"id":"(int_[^"]+)".*?"environment_id":"(env_[^"]+)"/.exec(text);
        if (match) {
          socket.off('data', onData);
          socket.pause();
          done(text);
        }
      };
      socket.on('data', onData);
      socket.write(
        `POST /v1beta/interactions HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    const [, interactionId, environmentId] =
      /"id":"(int_[^"]+)".*?"environment_id":"(env_[^"]+)"/.exec(first)!;
    let peak = 0;
    try {
      for (;;) {
        peak = Math.max(peak, rssMiB(child.pid!));
        const info = (await (await keyed(url, `/v1beta/environments/${environmentId}`)).json()) as {
          busy?: boolean;
        };
        if (info.busy === false) break;
        await new Promise((done) => setTimeout(done, 200));
      }
      peak = Math.max(peak, rssMiB(child.pid!));
      // The interaction ran to the end and was stored whole, though its client read nothing.
      const stored = (await (await keyed(url, `/v1beta/interactions/${interactionId}`)).json()) as {
        status: string;
        steps: { type: string; structured_result?: { stdout?: string } }[];
      };
      expect(stored.status).toBe('completed');
      const results = stored.steps.filter((step) => step.type === 'code_execution_result');
      expect(results).toHaveLength(100);
      expect(results.every((step) => step.structured_result?.stdout?.length === 1048000)).toBe(
        true,
      );
      // The client that never read lost its stream; the server did not buffer 100 MiB for it.
      expect(log.some((line) => line.includes('event stream dropped'))).toBe(true);
      console.log(`server RSS: baseline ${baseline.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB`);
      // Bounded by the output it must hold, not by the stream it could not send (docs/tenants.md,
      // "Output and memory"): 3.5× the 100 MiB above where it started.
      expect(peak - baseline).toBeLessThan(350);
    } finally {
      socket.destroy();
      await stop(child);
    }
  });
});
