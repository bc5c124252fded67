import { execFileSync, spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cli,
  GEMINI_GATE,
  GEMINI_HOOKS,
  ownResources,
  sourcesDir,
  type PrintedOutcome,
} from './cli-helpers.js';

/** A running container's process list (`docker top`); empty once it is gone. */
function processesOf(containerId: string): string {
  const top = spawnSync('docker', ['top', containerId], { encoding: 'utf8' });
  return top.status === 0 ? top.stdout : '';
}

const gemini = () =>
  sourcesDir({ '.agents/hooks.json': GEMINI_HOOKS, '.agents/hooks-scripts/gate.py': GEMINI_GATE });

describe('hookbox call with the Gemini hooks page security gate', () => {
  it('blocks rm -rf /tmp/forbidden with the gate reason and does not run it', async () => {
    const { code, stdout } = await cli(
      'call',
      '--sources',
      gemini(),
      '--tool',
      'code_execution',
      '--args',
      '{"code": "rm -rf /tmp/forbidden", "language": "bash"}',
      '--json',
    );
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout) as PrintedOutcome;
    expect(outcome).toMatchObject({
      tool_call: {
        name: 'code_execution',
        args: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
      },
      blocked: true,
      reason: 'Destructive command blocked by security gate.',
      result: null,
    });
    expect(outcome.environment_id).toMatch(/^env_/);
    expect(outcome.hooks).toEqual([
      {
        group: 'security-gate',
        event: 'pre_tool_execution',
        type: 'command',
        outcome: 'deny',
        reason: 'Destructive command blocked by security gate.',
        exit_code: 0,
        duration_ms: expect.any(Number) as number,
      },
    ]);
  });

  it('lets echo hello through with stdout hello', async () => {
    const { code, stdout } = await cli(
      'call',
      '--sources',
      gemini(),
      '--tool',
      'code_execution',
      '--args',
      '{"code": "echo hello", "language": "bash"}',
      '--json',
    );
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout) as PrintedOutcome;
    expect(outcome.blocked).toBe(false);
    expect(outcome.reason).toBeNull();
    expect(outcome.result).toEqual({
      exit_code: 0,
      stdout: 'hello\n',
      stderr: '',
      timed_out: false,
      truncated: false,
    });
    expect(outcome.hooks[0]?.outcome).toBe('allow');
  });

  it('--calls runs a batch in one environment and prints an array', async () => {
    const dir = gemini();
    const calls = join(dir, '..', `calls-${process.pid}.json`);
    writeFileSync(
      calls,
      JSON.stringify([
        { name: 'write_file', args: { path: 'a.txt', content: 'kept' } },
        { name: 'code_execution', args: { code: 'rm -rf a.txt' } },
        { name: 'code_execution', args: { code: 'cat a.txt' } },
      ]),
    );
    const { code, stdout } = await cli('call', '--sources', dir, '--calls', calls, '--json');
    expect(code).toBe(0);
    const outcomes = JSON.parse(stdout) as PrintedOutcome[];
    expect(outcomes.map((o) => o.blocked)).toEqual([false, true, false]);
    expect(outcomes[2]?.result?.stdout).toBe('kept');
    expect(new Set(outcomes.map((o) => o.environment_id)).size).toBe(1);
  });

  it('prints a readable transcript without --json', async () => {
    const { code, stdout } = await cli(
      'call',
      '--sources',
      gemini(),
      '--tool',
      'code_execution',
      '--args',
      '{"code": "rm -rf /tmp/forbidden"}',
    );
    expect(code).toBe(0);
    expect(stdout).toContain('security-gate (command) → deny');
    expect(stdout).toContain('blocked: Destructive command blocked by security gate.');
  });

  it('prints the ▶ header of a call before its live output', async () => {
    const { code, stdout } = await cli(
      'call',
      '--sources',
      gemini(),
      '--tool',
      'code_execution',
      '--args',
      '{"code": "echo live-line-42"}',
    );
    expect(code).toBe(0);
    const header = stdout.indexOf('▶ code_execution');
    expect(header).toBeGreaterThanOrEqual(0);
    expect(stdout.indexOf('live-line-42')).toBeGreaterThan(header);
    expect(stdout.match(/▶/g)).toHaveLength(1);
  });

  it('removes its environment afterwards', async () => {
    await cli(
      'call',
      '--sources',
      gemini(),
      '--tool',
      'code_execution',
      '--args',
      '{"code": "true"}',
    );
    expect(await ownResources()).toEqual({ containers: 0, volumes: 0 });
  });
});

describe('bad input: exit 2, a message naming the problem, nothing left behind', () => {
  const cases: [string, () => string[], RegExp][] = [
    [
      'a target outside .agents/ and workspace/',
      () => [
        '--sources',
        sourcesDir({ 'etc/passwd': 'x' }),
        '--tool',
        'code_execution',
        '--args',
        '{"code":"true"}',
      ],
      /"etc\/passwd": must be under ".agents\/" or "workspace\/"/,
    ],
    [
      'invalid JSON in hooks.json',
      () => [
        '--sources',
        sourcesDir({ '.agents/hooks.json': '{"g": ' }),
        '--tool',
        'code_execution',
        '--args',
        '{"code":"true"}',
      ],
      /hooks\.json is invalid:\n {2}\(file\): not valid JSON/,
    ],
    [
      'a schema error in hooks.json',
      () => [
        '--sources',
        sourcesDir({
          '.agents/hooks.json':
            '{"g": {"pre_tool_execution": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}',
        }),
        '--tool',
        'code_execution',
        '--args',
        '{"code":"true"}',
      ],
      /g\.pre_tool_execution\[0\]\.hooks\[0\]\.timeout: timeout must be a whole number/,
    ],
    [
      'a glob matcher',
      () => [
        '--sources',
        sourcesDir({
          '.agents/hooks.json':
            '{"g": {"pre_tool_execution": [{"matcher": "*_file", "hooks": []}]}}',
        }),
        '--tool',
        'read_file',
        '--args',
        '{"path":"x"}',
      ],
      /did you mean "\.\*_file"\?/,
    ],
    [
      'an http handler',
      () => [
        '--sources',
        sourcesDir({
          '.agents/hooks.json':
            '{"g": {"post_tool_execution": [{"hooks": [{"type": "http", "url": "https://telemetry.example.com/ev"}]}]}}',
        }),
        '--tool',
        'read_file',
        '--args',
        '{"path":"x"}',
      ],
      /"http" handlers need a network\.allowlist/,
    ],
    [
      'an unknown tool',
      () => [
        '--sources',
        sourcesDir({ 'workspace/a': 'x' }),
        '--tool',
        'rm_everything',
        '--args',
        '{}',
      ],
      /unknown tool "rm_everything"/,
    ],
    [
      'a missing argument',
      () => [
        '--sources',
        sourcesDir({ 'workspace/a': 'x' }),
        '--tool',
        'read_file',
        '--args',
        '{}',
      ],
      /tool_call\.args\.path/,
    ],
    [
      '--args that is not JSON',
      () => [
        '--sources',
        sourcesDir({ 'workspace/a': 'x' }),
        '--tool',
        'read_file',
        '--args',
        '{path: x}',
      ],
      /--args: not valid JSON/,
    ],
    [
      'a missing sources folder',
      () => ['--sources', '/nonexistent/hookbox', '--tool', 'read_file', '--args', '{"path":"x"}'],
      /--sources: \/nonexistent\/hookbox does not exist/,
    ],
    [
      'neither --tool nor --calls',
      () => ['--sources', sourcesDir({ 'workspace/a': 'x' })],
      /give --tool NAME/,
    ],
  ];
  it.each(cases)('%s', async (_name, argv, message) => {
    const { code, stderr, stdout } = await cli('call', ...argv());
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stdout).toBe('');
    expect(await ownResources()).toEqual({ containers: 0, volumes: 0 });
  });

  it('a symlink in the sources folder', async () => {
    const dir = sourcesDir({ 'workspace/a': 'x' });
    symlinkSync('/etc/passwd', join(dir, 'workspace', 'link'));
    const { code, stderr } = await cli(
      'call',
      '--sources',
      dir,
      '--tool',
      'code_execution',
      '--args',
      '{"code":"true"}',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('workspace/link is a symlink');
  });

  it('an unknown option', async () => {
    expect((await cli('call', '--sorces', 'x')).code).toBe(2);
  });
});

describe('a runtime failure mid-batch', () => {
  it('prints the outcomes so far, then the error, and exits 1', async () => {
    const dir = sourcesDir({ 'workspace/a': 'x' });
    const calls = join(dir, '..', `calls-fail-${process.pid}.json`);
    writeFileSync(
      calls,
      JSON.stringify([
        { name: 'code_execution', args: { code: 'echo first' } },
        { name: 'code_execution', args: { code: 'sleep 20' } },
        { name: 'code_execution', args: { code: 'echo never' } },
      ]),
    );
    const running = cli('call', '--sources', dir, '--calls', calls, '--json');
    // Remove the environment's container from outside while the second call runs.
    let removed = false;
    for (let i = 0; i < 100 && !removed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const ids = execFileSync('docker', [
        'ps',
        '-q',
        '--filter',
        `label=dev.hookbox.controller-pid=${process.pid}`,
      ])
        .toString()
        .trim();
      // Once the second call's `sleep 20` runs in the container (`docker top`: nothing is started
      // inside it to look).
      if (ids && processesOf(ids.split('\n')[0]!).includes('sleep 20')) {
        execFileSync('docker', ['rm', '-f', ...ids.split('\n')]);
        removed = true;
      }
    }
    const { code, stdout, stderr } = await running;
    expect(removed).toBe(true);
    expect(code).toBe(1);
    const outcomes = JSON.parse(stdout) as PrintedOutcome[];
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.result?.stdout).toBe('first\n');
    expect(stderr).toMatch(/hookbox: failure: .*(removed|gone|stopped)/);
    expect(await ownResources()).toEqual({ containers: 0, volumes: 0 });
  });
});

describe('the installed command', () => {
  it('npx hookbox exits 2 on bad input, without a stack trace', () => {
    const run = spawnSync(
      'node',
      [
        'bin/hookbox.js',
        'call',
        '--sources',
        sourcesDir({ 'bad/x': '1' }),
        '--tool',
        'code_execution',
        '--args',
        '{"code":"true"}',
      ],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^hookbox: error: sources\[0\]\.target "bad\/x": must be under/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
