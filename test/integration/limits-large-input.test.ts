// docs/contract.md §5, §6 against real containers: hook payloads larger than a pipe holds, and tool
// code longer than the kernel takes as one argument. Shared helpers: limits-helpers.ts.
import { describe, expect, it } from 'vitest';
import { bash, hooksJson, rule, useController } from './helpers.js';
import { GATED, run, sharedEnvironmentOf } from './limits-helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();
const sharedEnvironment = sharedEnvironmentOf(controller);

describe('hook stdin larger than a pipe holds', () => {
  // A pipe buffers 64 KiB: a bigger payload is fed as the handler reads it, and a handler that never
  // reads it must not hold the call.
  const READER = `python3 -c "
import json, sys
code = json.load(sys.stdin)['tool_call']['args']['code']
print(json.dumps({'decision': 'deny', 'reason': 'read %d' % len(code)}) if 'READ_ALL' in code else '{}')"`;
  const POST = `python3 -c "
import json, os, sys
result = json.load(sys.stdin)['result']
open(os.path.join(os.environ['HOOKBOX_STATE_DIR'], 'post-stdout'), 'w').write('%d %s' % (len(result['stdout']), result['truncated']))"`;
  const REPORT = `if grep -q REPORT_POST; then echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"$(cat "$HOOKBOX_STATE_DIR/post-stdout")\\"}"; fi`;
  const env = sharedEnvironment({
    sources: [
      hooksJson({
        deaf: { pre_tool_execution: [rule('code_execution', 'exit 0')] },
        reader: { pre_tool_execution: [rule('code_execution', READER, REPORT)] },
        post: { post_tool_execution: [rule('code_execution', POST)] },
      }),
    ],
  });
  const padded = (word: string, bytes: number) => `true ${word} # ${'x'.repeat(bytes)}`;

  it('a handler reads a 600 KB payload whole', async () => {
    const code = padded('READ_ALL', 600_000);
    const outcome = await env().call(bash(code));
    expect([outcome.blocked, outcome.reason]).toEqual([true, `read ${code.length}`]);
    expect(outcome.hooks.map((record) => [record.group, record.outcome])).toEqual([
      ['deaf', 'unrecognized'],
      ['reader', 'deny'],
      ['reader', 'skipped'],
    ]);
  });

  it('a handler that never reads a 600 KB payload does not hold the call', async () => {
    const started = Date.now();
    const outcome = await env().call(bash(padded('echo ran', 600_000)));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.blocked).toBe(false);
    expect(execResultOf(outcome).exit_code).toBe(0);
    expect(outcome.hooks.find((record) => record.group === 'deaf')?.outcome).toBe('unrecognized');
  });

  it('a post handler gets the whole capped 1 MiB result', async () => {
    const outcome = await env().call(bash(`head -c ${2 * 1024 * 1024} /dev/zero | tr '\\0' g`));
    expect(execResultOf(outcome).stdout.length).toBe(1024 * 1024);
    expect(outcome.hooks.find((record) => record.group === 'post')?.outcome).toBe('ok');
    const report = await env().call(bash('echo REPORT_POST'));
    expect(report.reason).toBe(`${1024 * 1024} True`);
  });
});

describe('code longer than the kernel takes as one argument (128 KiB)', () => {
  const env = sharedEnvironment({ sources: GATED });
  const filler = (bytes: number) => 'x'.repeat(bytes);
  // Each program prints how long its own filler string is, so the whole code must have arrived.
  const programs = {
    bash: (bytes: number) => `f='${filler(bytes)}'; echo "\${#f} $0"`,
    sh: (bytes: number) => `f='${filler(bytes)}'; echo "\${#f}"`,
    python: (bytes: number) =>
      `import sys\nf = '${filler(bytes)}'\nprint(len(f), repr(sys.path[0]), __name__, sys.argv)`,
  };

  it.each([
    ['bash', 400_000, '400000 /dev/fd/3'],
    ['sh', 400_000, '400000'],
    ['python', 400_000, "400000 '' __main__ ['-c']"],
  ] as const)('%s code of %d bytes runs whole', async (language, bytes, expected) => {
    const outcome = await env().call({
      name: 'code_execution',
      args: { code: programs[language](bytes), language },
    });
    expect(outcome.blocked).toBe(false);
    const result = execResultOf(outcome);
    expect([result.stdout.trim(), result.stderr, result.exit_code]).toEqual([expected, '', 0]);
  });

  it('either side of the limit: the last code given as an argument and the first given on fd 3', async () => {
    const overhead = programs.bash(0).length;
    for (const [bytes, how] of [
      [128 * 1024 - 1 - overhead, '/bin/bash'],
      [128 * 1024 - overhead, '/dev/fd/3'],
    ] as const) {
      const result = await run(env(), programs.bash(bytes));
      expect(result.stdout).toBe(`${bytes} ${how}\n`);
    }
  });

  it('the gates see long code too, and block it', async () => {
    const outcome = await env().call(bash(`echo FORBIDDEN # ${filler(300_000)}`));
    expect(outcome.blocked).toBe(true);
  });
});
