// Ctrl-C (SIGINT) or SIGTERM on `hookbox call` or a local `hookbox run` removes the container and
// its volumes on the way out, a call in flight included; a library process killed outright leaves
// resources that the next controller start reaps, with default options.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { sourcesDir } from './cli-helpers.js';

const byPid = (pid: number, kind: 'ps' | 'volume') =>
  execFileSync(
    'docker',
    kind === 'ps'
      ? ['ps', '-aq', '--filter', `label=dev.hookbox.controller-pid=${pid}`]
      : ['volume', 'ls', '-q', '--filter', `label=dev.hookbox.controller-pid=${pid}`],
  )
    .toString()
    .trim()
    .split('\n')
    .filter(Boolean);

/** Runs the CLI, waits until its sandbox runs `sleep`, sends `signal`; returns the exit code. */
async function interrupted(args: string[], signal: NodeJS.Signals, home: string) {
  const child = spawn('node', [resolve('bin/hookbox.js'), ...args], {
    env: { ...process.env, HOOKBOX_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  for (let i = 0; i < 120; i++) {
    await new Promise((wait) => setTimeout(wait, 250));
    const [container] = byPid(child.pid!, 'ps');
    if (container && execFileSync('docker', ['top', container]).toString().includes('sleep 300'))
      break;
  }
  expect(byPid(child.pid!, 'ps')).toHaveLength(1);
  expect(byPid(child.pid!, 'volume').length).toBeGreaterThan(0);
  child.kill(signal);
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  return { code, stderr, pid: child.pid! };
}

describe('interrupting hookbox call and hookbox run', () => {
  it('SIGINT on hookbox call, mid-call: exit 130, container and volumes removed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-int-'));
    const dir = sourcesDir({ 'workspace/x.txt': 'x' });
    const { code, stderr, pid } = await interrupted(
      ['call', '--sources', dir, '--tool', 'code_execution', '--args', '{"code":"sleep 300"}'],
      'SIGINT',
      home,
    );
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('removing the environment');
    expect(byPid(pid, 'ps')).toEqual([]);
    expect(byPid(pid, 'volume')).toEqual([]);
  });

  it('SIGTERM on a local hookbox run: exit 143, container and volumes removed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-int-'));
    const file = join(home, 'request.json');
    writeFileSync(
      file,
      JSON.stringify({
        agent: 'scripted',
        input: [{ type: 'code_execution_call', arguments: { code: 'sleep 300' } }],
        environment: 'remote',
      }),
    );
    const { code, stderr, pid } = await interrupted(['run', file], 'SIGTERM', home);
    expect(code, stderr).toBe(143);
    expect(byPid(pid, 'ps')).toEqual([]);
    expect(byPid(pid, 'volume')).toEqual([]);
  });
});

describe('a library process killed outright', () => {
  it('leaves resources that the next Controller.start() reaps, with default options', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-int-'));
    const script = `import { Controller } from ${JSON.stringify(resolve('dist/src/index.js'))};
const controller = await Controller.start({ home: ${JSON.stringify(home)} });
const environment = await controller.createEnvironment();
console.log(environment.id);
setInterval(() => {}, 1000);`;
    const child = spawn('node', ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const environmentId = await new Promise<string>((done) =>
      createInterface({ input: child.stdout }).once('line', done),
    );
    expect(environmentId).toMatch(/^env_/);
    child.kill('SIGKILL');
    await new Promise((wait) => child.once('exit', wait));
    expect(byPid(child.pid!, 'ps')).toHaveLength(1);

    const next = await Controller.start({ home, logger: createLogger({ level: 'silent' }) });
    await next.close();
    expect(byPid(child.pid!, 'ps')).toEqual([]);
    expect(byPid(child.pid!, 'volume')).toEqual([]);
  });
});
