import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { auditLogPath, readAuditLog } from '../../src/record/audit-log.js';
import { createLogger } from '../../src/record/logger.js';

// A second controller process (the compiled library): makes an environment, runs calls, says so
// on stdout, then waits to be killed.
const CHILD = `
const { Controller } = await import(${JSON.stringify(resolve('dist/src/index.js'))});
const controller = await Controller.start({ stateFile: process.env.STATE, home: process.env.HOME_DIR });
const hooks = JSON.stringify({ gate: { pre_tool_execution: [{ matcher: 'code_execution', hooks: [{ type: 'command', command: "python3 -c 'import json,sys; c=json.load(sys.stdin)[\\"tool_call\\"][\\"args\\"][\\"code\\"]; print(json.dumps({\\"decision\\": \\"deny\\", \\"reason\\": \\"gate says no\\"} if \\"FORBIDDEN\\" in c else {\\"decision\\": \\"allow\\"}))'" }] }] } });
const env = await controller.createEnvironment({ vocabulary: '2026-05', sources: [{ type: 'inline', target: '.agents/hooks.json', content: hooks }] });
await env.call({ name: 'write_file', args: { path: 'kept.txt', content: 'survives' } });
await env.call({ name: 'code_execution', args: { code: 'echo FORBIDDEN' } });
console.log(env.id);
setInterval(() => {}, 1000);
`;

describe('a controller killed with kill -9, then restarted', () => {
  it('re-attaches to its live environments: workspace intact, still gated, audit log complete', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-restart-'));
    const stateFile = join(dir, 'state.sqlite');
    const child = spawn('node', ['--input-type=module', '-e', CHILD], {
      env: { ...process.env, STATE: stateFile, HOME_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const environmentId = await new Promise<string>((done, fail) => {
      createInterface({ input: child.stdout }).once('line', done);
      child.once('exit', (code) => fail(new Error(`child exited ${code}`)));
    });
    expect(environmentId).toMatch(/^env_/);
    const before = readAuditLog(auditLogPath(dir, environmentId));
    // A restart a measurable time later, so the original age and the restart's differ.
    await new Promise((done) => setTimeout(done, 1500));
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));

    const restartedAt = Date.now();
    const controller = await Controller.start({
      stateFile,
      home: dir,
      logger: createLogger({ level: 'silent' }),
      reapOrphansOnStart: true,
    });
    try {
      const environment = controller.getEnvironment(environmentId);
      // Its age is its original one, not the restart's (docs/console.md, "Pages").
      expect(environment.createdAt).toBeLessThan(restartedAt - 1000);
      expect(
        (await environment.call({ name: 'read_file', args: { path: 'kept.txt' } })).result,
      ).toEqual({ content: 'survives' });
      const blocked = await environment.call({
        name: 'code_execution',
        args: { code: 'echo FORBIDDEN' },
      });
      expect(blocked).toMatchObject({ blocked: true, reason: 'gate says no' });
      const after = readAuditLog(auditLogPath(dir, environmentId));
      expect(after.slice(0, before.length)).toEqual(before);
      expect(before.filter((entry) => entry.kind === 'tool_call')).toHaveLength(2);
      expect(
        after.some((entry) => entry.kind === 'environment' && entry.event === 'reattached'),
      ).toBe(true);
    } finally {
      await controller.close();
    }
    expect(
      execFileSync('docker', [
        'ps',
        '-aq',
        '--filter',
        `label=dev.hookbox.environment=${environmentId}`,
      ])
        .toString()
        .trim(),
    ).toBe('');
  });

  it('orphans of a dead controller without a state file are reaped at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-orphan-'));
    const child = spawn(
      'node',
      ['--input-type=module', '-e', CHILD.replace('stateFile: process.env.STATE, ', '')],
      { env: { ...process.env, HOME_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const environmentId = await new Promise<string>((done) =>
      createInterface({ input: child.stdout }).once('line', done),
    );
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));
    const filter = `label=dev.hookbox.environment=${environmentId}`;
    expect(execFileSync('docker', ['ps', '-aq', '--filter', filter]).toString().trim()).not.toBe(
      '',
    );
    // What a networked environment leaves on the host when its controller dies: its proxy socket.
    const socketFolder = join(dir, 'egress', environmentId);
    mkdirSync(socketFolder, { recursive: true });
    writeFileSync(join(socketFolder, 'proxy.sock'), '');
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    utimesSync(socketFolder, twoMinutesAgo, twoMinutesAgo);
    const controller = await Controller.start({
      home: dir,
      logger: createLogger({ level: 'silent' }),
      reapOrphansOnStart: true,
    });
    await controller.close();
    expect(existsSync(socketFolder)).toBe(false);
    expect(execFileSync('docker', ['ps', '-aq', '--filter', filter]).toString().trim()).toBe('');
    expect(
      execFileSync('docker', ['volume', 'ls', '-q', '--filter', filter]).toString().trim(),
    ).toBe('');
  });
});
