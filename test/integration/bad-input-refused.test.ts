// Bad input is the caller's mistake, answered up front as a 4xx in hookbox's error shape (or exit
// 2 from the CLI), with bounded memory: never a runtime failure.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, GEMINI_GATE, GEMINI_HOOKS, sourcesDir } from './cli-helpers.js';
import { fetchJson, scriptedRequest, useServer } from './api-helpers.js';
import { apiErrorOf } from './api-error.js';

const server = useServer();
const deepHooks = '['.repeat(20_000) + ']'.repeat(20_000);
const gate = [
  { type: 'inline' as const, target: '.agents/hooks.json', content: GEMINI_HOOKS },
  { type: 'inline' as const, target: '.agents/hooks-scripts/gate.py', content: GEMINI_GATE },
];

describe('bad input over HTTP: a 4xx in hookbox error shape', () => {
  it('a deeply nested hooks.json is invalid_hooks_config, not a stack overflow', async () => {
    const answer = await fetchJson(
      server(),
      'POST',
      '/v1beta/interactions',
      scriptedRequest(
        [{ type: 'code_execution_call', arguments: { code: 'echo hi' } }],
        [{ type: 'inline', target: '.agents/hooks.json', content: deepHooks }],
      ),
    );
    expect(answer.status, answer.text).toBe(400);
    expect(apiErrorOf(answer.json).code).toBe('invalid_hooks_config');
    expect(apiErrorOf(answer.json).message).toContain('nested deeper than 64 levels');
  });

  it('a deeply nested request body is refused naming the body', async () => {
    const deep = JSON.stringify({
      agent: 'scripted',
      input: [{ type: 'code_execution_call', arguments: { code: 'x', more: 0 } }],
    }).replace('"more":0', `"more":${'['.repeat(5000)}${']'.repeat(5000)}`);
    const answer = await fetchJson(server(), 'POST', '/v1beta/interactions', deep);
    expect(answer.status, answer.text).toBe(400);
    expect(apiErrorOf(answer.json)).toMatchObject({ code: 'invalid_argument', field: 'body' });
  });

  it('a NUL in code, and a lone surrogate in a path, are refused naming the argument', async () => {
    const nul = await fetchJson(
      server(),
      'POST',
      '/v1beta/interactions',
      scriptedRequest(
        [{ type: 'code_execution_call', arguments: { code: 'echo a\u0000b' } }],
        gate,
      ),
    );
    expect(nul.status, nul.text).toBe(400);
    expect(apiErrorOf(nul.json).message).toContain('arguments.code: must not contain NUL');
    const surrogate = await fetchJson(
      server(),
      'POST',
      '/v1beta/interactions',
      '{"agent":"scripted","input":[{"type":"tool_call","name":"view_file","arguments":{"AbsolutePath":"/workspace/\\ud800.txt"}}],"environment":"remote"}',
    );
    expect(surrogate.status, surrogate.text).toBe(400);
    expect(apiErrorOf(surrogate.json).message).toContain('arguments.AbsolutePath');
    expect(apiErrorOf(surrogate.json).message).toContain('lone UTF-16 surrogate');
  });

  it('a lone surrogate in a text source is refused (binary files go as base64)', async () => {
    const answer = await fetchJson(
      server(),
      'POST',
      '/v1beta/interactions',
      '{"agent":"scripted","input":[{"type":"code_execution_call","arguments":{"code":"true"}}],"environment":{"type":"remote","sources":[{"type":"inline","target":"workspace/x.txt","content":"a\\udc00b"}]}}',
    );
    expect(answer.status, answer.text).toBe(400);
    expect(apiErrorOf(answer.json).code).toBe('invalid_sources');
    expect(apiErrorOf(answer.json).message).toContain('base64');
  });

  it('an over-long id is a 404 in hookbox error shape, not the framework own', async () => {
    for (const path of [
      `/v1beta/environments/env_${'x'.repeat(5000)}`,
      `/v1beta/interactions/int_${'x'.repeat(5000)}`,
    ]) {
      const answer = await fetchJson(server(), 'GET', path);
      expect(answer.status, answer.text).toBe(404);
      expect(apiErrorOf(answer.json)).toMatchObject({
        code: 'not_found',
        httpStatus: 404,
        status: 'NOT_FOUND',
        field: 'id',
      });
    }
  });
});

describe('bad input on the command line: exit 2', () => {
  it('a NUL in code is exit 2 with a message naming the argument', async () => {
    const dir = sourcesDir({
      '.agents/hooks.json': GEMINI_HOOKS,
      '.agents/hooks-scripts/gate.py': GEMINI_GATE,
    });
    const result = await cli(
      'call',
      '--sources',
      dir,
      '--tool',
      'code_execution',
      '--args',
      JSON.stringify({ code: 'echo a\u0000b' }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tool_call.args.code: must not contain NUL');
  });

  it('a deeply nested hooks.json in --sources is exit 2', async () => {
    const dir = sourcesDir({ '.agents/hooks.json': deepHooks });
    const result = await cli(
      'call',
      '--sources',
      dir,
      '--tool',
      'code_execution',
      '--args',
      '{"code":"true"}',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nested deeper than 64 levels');
  });

  it('a 600 MiB file in --sources is refused before it is read: exit 2, memory stays low', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-huge-'));
    writeFileSync(join(dir, 'big.bin'), '');
    truncateSync(join(dir, 'big.bin'), 600 * 1024 * 1024); // sparse: no disk used
    // A fresh process, so its peak RSS is the command's own (maxRSS, in KiB, printed last).
    const script = `import { main } from ${JSON.stringify(resolve('dist/src/cli/main.js'))};
const code = await main(process.argv.slice(1));
process.stderr.write('\\n' + process.resourceUsage().maxRSS + '\\n');
process.exit(code);`;
    const child = spawn(
      'node',
      [
        '--input-type=module',
        '-e',
        script,
        'call',
        '--sources',
        dir,
        '--tool',
        'code_execution',
        '--args',
        '{"code":"true"}',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number>((done) => child.once('exit', (c) => done(c ?? -1)));
    expect(code).toBe(2);
    expect(stderr).toContain('629145600 bytes');
    expect(stderr).toMatch(/over the limit of \d+ bytes/);
    const peakKb = Number(stderr.trim().split('\n').at(-1));
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb).toBeLessThan(300 * 1024);
    // The file's bytes never came through: the command did not even look at the engine.
    expect(execFileSync('du', ['-k', join(dir, 'big.bin')]).toString()).toMatch(/^0\s/);
  });
});
