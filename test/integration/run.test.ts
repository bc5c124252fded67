// `hookbox run REQUEST.json`: here (a local controller, no server) and against a server (--url).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import {
  codeCall,
  PRIVACY_GATE_REQUEST,
  PRIVACY_REASON,
  scripted,
  SECURITY_GATE_REQUEST,
  toolCall,
} from '../unit/interactions/gemini-requests.js';
import { cli, ownResources } from './cli-helpers.js';

const KEY = 'run-test-key-0001';
const dir = mkdtempSync(join(tmpdir(), 'hookbox-run-'));

function requestFile(name: string, body: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return path;
}

const security = () =>
  requestFile(
    'security.json',
    scripted(SECURITY_GATE_REQUEST, codeCall('rm -rf /tmp/forbidden'), codeCall('echo hello')),
  );

describe('hookbox run, here (no server)', () => {
  it('prints a transcript: each call, each hook with outcome, reason and duration, each result', async () => {
    const before = await ownResources();
    const { code, stdout, stderr } = await cli('run', security());
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^interaction int_\w+ \(agent scripted\) in env_\w+\n\n/);
    expect(stdout).toContain('» user: Run `rm -rf /tmp/forbidden` using code_execution.\n');
    expect(stdout).toContain(
      '▶ code_execution {"code":"rm -rf /tmp/forbidden","language":"bash"}\n',
    );
    expect(stdout).toMatch(
      / {2}pre {2}security-gate \(command\) → deny \[\d+ ms\] {2}Destructive command blocked by security gate\.\n {2}✖ blocked: Destructive command blocked by security gate\.\n/,
    );
    expect(stdout).toMatch(
      /▶ code_execution \{"code":"echo hello","language":"bash"\}\n {2}pre {2}security-gate \(command\) → allow \[\d+ ms\]\n {2}✔ exit 0\n {2}stdout:\n {4}hello\n/,
    );
    expect(stdout).toContain('\ncompleted — 2 call(s), 1 blocked\n');
    // One-shot: the environment went with the command.
    expect(await ownResources()).toEqual(before);
  });

  it('--json prints the Interaction', async () => {
    const file = requestFile(
      'privacy.json',
      scripted(
        PRIVACY_GATE_REQUEST,
        toolCall('read_file', { path: '/workspace/private/employees.json' }),
      ),
    );
    const { code, stdout } = await cli('run', file, '--json');
    expect(code).toBe(0);
    const interaction = JSON.parse(stdout) as Interaction;
    expect(interaction.status).toBe('completed');
    expect(interaction.steps[2]).toMatchObject({
      type: 'function_result',
      blocked: true,
      result: PRIVACY_REASON,
    });
  });

  it.each([
    ['not JSON', '{"agent": ', /not valid JSON/],
    ['not an object', '[1]', /must hold one JSON object/],
    [
      'an unknown field',
      JSON.stringify({ agent: 'scripted', input: 'x', environment: 'remote', tool: [] }),
      /^hookbox: error: tool: unknown field "tool" \(did you mean "tools"\?\)/,
    ],
    [
      'a bad source',
      JSON.stringify({
        agent: 'scripted',
        input: 'x',
        environment: { type: 'remote', sources: [{ type: 'inline', target: 'x/y', content: '' }] },
      }),
      /environment\.sources\[0\]\.target "x\/y": must be under/,
    ],
    [
      'an unknown previous interaction',
      JSON.stringify({ agent: 'scripted', input: 'x', previous_interaction_id: 'int_x' }),
      /previous_interaction_id: no interaction/,
    ],
  ])('bad input (%s) exits 2 naming the field, leaving nothing', async (_name, text, message) => {
    const before = await ownResources();
    const { code, stdout, stderr } = await cli('run', requestFile('bad.json', text));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(await ownResources()).toEqual(before);
  });

  it('a missing file exits 2', async () => {
    const { code, stderr } = await cli('run', join(dir, 'nope.json'));
    expect(code).toBe(2);
    expect(stderr).toContain('cannot read (ENOENT)');
  });
});

describe('hookbox run --url (against a server)', () => {
  let server: RunningServer;
  const logger = createLogger({ level: 'silent' });
  beforeAll(async () => {
    const controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-run-server-')),
      logger,
      startEngine: false,
    });
    server = await startServer({ host: '127.0.0.1', port: 0, apiKeys: [KEY], logger, controller });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('streams the same transcript', async () => {
    const { code, stdout, stderr } = await cli(
      'run',
      security(),
      '--url',
      server.url,
      '--api-key',
      KEY,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(
      / {2}pre {2}security-gate \(command\) → deny \[\d+ ms\] {2}Destructive command blocked by security gate\.\n {2}✖ blocked: /,
    );
    expect(stdout).toContain('\ncompleted — 2 call(s), 1 blocked\n');
  });

  it('--json prints the Interaction the server keeps', async () => {
    process.env.HOOKBOX_API_KEY = KEY;
    try {
      const { code, stdout } = await cli('run', security(), '--url', server.url, '--json');
      expect(code).toBe(0);
      const interaction = JSON.parse(stdout) as Interaction;
      const kept = await fetch(`${server.url}/v1beta/interactions/${interaction.id}`, {
        headers: { 'x-goog-api-key': KEY },
      });
      expect(await kept.json()).toEqual(interaction);
    } finally {
      delete process.env.HOOKBOX_API_KEY;
    }
  });

  it('a request the server refuses exits 2 with its message; a wrong key too', async () => {
    const bad = requestFile('bad-remote.json', {
      agent: 'scripted',
      input: 'x',
      environment: 'env_nope',
    });
    const refused = await cli('run', bad, '--url', server.url, '--api-key', KEY);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/environment: no environment "env_nope" \(HTTP 404\)/);
    const wrongKey = await cli(
      'run',
      security(),
      '--url',
      server.url,
      '--api-key',
      'wrong-key-000',
    );
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toMatch(/API key not valid \(HTTP 401\)/);
  });

  it('a server that does not answer exits 1', async () => {
    const { code, stderr } = await cli(
      'run',
      security(),
      '--url',
      'http://127.0.0.1:1',
      '--api-key',
      KEY,
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1/);
  });
});
