// docs/contract.md §5, §6 against real containers: tool call timeouts kill the whole tree, output caps, leftover
// processes swept after each call (unless background_processes), hostile process tricks leave the
// environment working and gated, and hook timeouts and hook leftovers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome, Environment } from '../../src/environments/environment.js';
import type { EnvironmentOptions } from '../../src/environments/environment-options.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';

const controller = useController();

interface Exec {
  exit_code: number;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  truncated: boolean;
}

/** Runs bash as tool code and times the whole call; the call must not be blocked. */
async function timed(
  environment: Environment,
  code: string,
): Promise<{ result: Exec; ms: number; outcome: CallOutcome }> {
  const started = Date.now();
  const outcome = await environment.call(bash(code));
  const ms = Date.now() - started;
  expect(outcome.blocked, `blocked: ${outcome.reason}`).toBe(false);
  return { result: outcome.result as unknown as Exec, ms, outcome };
}

const run = async (environment: Environment, code: string) =>
  (await timed(environment, code)).result;

/** Processes of `user` whose command line contains `needle` (ps itself never does: it is given a pattern). */
async function processesOf(
  environment: Environment,
  user: string,
  needle: string,
): Promise<string[]> {
  const { stdout } = await run(
    environment,
    `ps -eo user:12,pid,cmd --no-headers | grep -F '${needle}' | grep -v -e grep -e 'ps -eo'; true`,
  );
  return stdout.split('\n').filter((line) => line.startsWith(`${user} `));
}

/** Prints how many live processes of the tool user there are, besides this one and its parent. */
const COUNT_TOOL_PROCESSES = `python3 -c "
import os
me, n = {os.getpid(), os.getppid()}, 0
for p in filter(str.isdigit, os.listdir('/proc')):
    try:
        if int(p) not in me and os.stat('/proc/' + p).st_uid == 1000:
            n += open('/proc/%s/stat' % p).read().rsplit(')', 1)[1].split()[0] not in ('Z', 'X')
    except OSError:
        pass
print(n)"`;

const GATE = inline(
  '.agents/gate.sh',
  `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`,
);
const GATED: EnvironmentOptions['sources'] = [
  hooksJson({ gate: { pre_tool_execution: [rule('*', '/.agents/gate.sh')] } }),
  GATE,
];

async function expectWorkingAndGated(environment: Environment): Promise<void> {
  const blocked = await environment.call(bash('echo FORBIDDEN'));
  expect([blocked.blocked, blocked.reason]).toEqual([true, 'forbidden word']);
  const { result } = await timed(environment, 'echo alive; id -u');
  expect(result.stdout).toBe('alive\n1000\n');
}

/** One environment per describe, deleted after it. */
function sharedEnvironment(options: EnvironmentOptions): () => Environment {
  let environment: Environment | undefined;
  beforeAll(async () => {
    environment = await (await controller()).createEnvironment(options);
  });
  afterAll(async () => {
    await environment?.delete();
  });
  return () => environment!;
}

describe('the tool call timeout', () => {
  const env = sharedEnvironment({ toolTimeoutMs: 1500, sources: GATED });

  it.each([
    ['sleep 31', 'sleep 31'],
    ["bash -c 'sleep 32 & sleep 32 & wait'", 'sleep 32'],
    ['sleep 33 & (sleep 33; echo x) & python3 -c "import time; time.sleep(33)" & wait', 'sleep 33'],
  ])('kills %s and its whole tree well before it would end', async (code, needle) => {
    const { result, ms, outcome } = await timed(env(), code);
    expect(result.timed_out).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(1400);
    expect(ms).toBeLessThan(8000);
    expect(outcome.error).toMatch(/timed out/);
    expect(await processesOf(env(), 'tool', needle)).toEqual([]);
    expect((await run(env(), COUNT_TOOL_PROCESSES)).stdout).toBe('0\n');
  });

  // Own environment: when this fails, the agent is still stuck on it after the controller gives up.
  it('kills the call at its timeout even when a setsid child outside its group holds stdout', async () => {
    await withEnvironment(controller, { toolTimeoutMs: 1500 }, async (isolated) => {
      const started = Date.now();
      const outcome = await isolated
        .call(bash('setsid sleep 34 & wait'))
        .catch((error: Error) => error);
      expect(
        outcome instanceof Error ? outcome.message : 'answered',
        `after ${Date.now() - started} ms`,
      ).toBe('answered');
      expect((outcome as CallOutcome).result?.timed_out).toBe(true);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(await processesOf(isolated, 'tool', 'sleep 34')).toEqual([]);
    });
  });

  it('a call that ends in time is not marked timed out', async () => {
    const result = await run(env(), 'sleep 0.2; echo ok');
    expect([result.timed_out, result.exit_code, result.stdout]).toEqual([false, 0, 'ok\n']);
  });
});

describe('output caps', () => {
  const env = sharedEnvironment({ outputCapBytes: 1000 });
  const many = (bytes: number, char: string) => `head -c ${bytes} /dev/zero | tr '\\0' ${char}`;

  it('caps stdout at outputCapBytes and says so', async () => {
    const result = await run(env(), many(5000, 'a'));
    expect([result.stdout, result.stderr, result.truncated, result.exit_code]).toEqual([
      'a'.repeat(1000),
      '',
      true,
      0,
    ]);
  });

  it('caps stderr separately', async () => {
    const result = await run(env(), `${many(5000, 'b')} >&2; echo ok`);
    expect([result.stdout, result.stderr, result.truncated]).toEqual([
      'ok\n',
      'b'.repeat(1000),
      true,
    ]);
    const both = await run(env(), `${many(3000, 'c')}; ${many(3000, 'd')} >&2`);
    expect([both.stdout, both.stderr, both.truncated]).toEqual([
      'c'.repeat(1000),
      'd'.repeat(1000),
      true,
    ]);
  });

  it('output at the cap is whole and not truncated', async () => {
    const result = await run(env(), `${many(1000, 'e')}; ${many(999, 'f')} >&2`);
    expect([result.stdout.length, result.stderr.length, result.truncated]).toEqual([
      1000,
      999,
      false,
    ]);
  });

  it('the default cap is 1 MiB', async () => {
    await withEnvironment(controller, {}, async (plain) => {
      const result = await run(plain, `${many(2 * 1024 * 1024, 'g')}; ${many(1000, 'h')} >&2`);
      expect([result.stdout.length, result.stderr.length, result.truncated]).toEqual([
        1024 * 1024,
        1000,
        true,
      ]);
    });
  });
});

const LEFTOVERS = [
  ['sleep 301 &', 'sleep 301', 'sleep'],
  ['nohup sleep 302 >/dev/null 2>&1 &', 'sleep 302', 'sleep'],
  ['setsid sleep 303 >/dev/null 2>&1 &', 'sleep 303', 'sleep'],
  ["(setsid sh -c 'sleep 304 >/dev/null 2>&1 &' &)", 'sleep 304', 'sleep'],
  [
    'python3 -c "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.closerange(0, 3)\n        time.sleep(305)" daemon-305',
    'daemon-305',
    'python3',
  ],
  ['sleep 306 >/dev/null 2>&1 & disown', 'sleep 306', 'sleep'],
] as const;

describe('leftover processes', () => {
  // A short timeout so that a call that wrongly waits for its leftovers fails in 10 s, not 60 s.
  const env = sharedEnvironment({ toolTimeoutMs: 10_000, sources: GATED });

  it.each(LEFTOVERS)('%s is gone after the call', async (code, needle, name) => {
    const { result, ms } = await timed(env(), `${code}\nsleep 0.2; pgrep -c -x ${name}`);
    expect(Number(result.stdout)).toBeGreaterThanOrEqual(1); // it was running when the call ended
    expect(ms).toBeLessThan(5000);
    expect(await processesOf(env(), 'tool', needle)).toEqual([]);
  });

  it.each([
    ['sleep 5 & echo done', 2500], // in the call's process group
    ['setsid sleep 5 & echo done', 3500], // outside it
  ])('a background child holding stdout (%s) does not make the call hang', async (code, ms) => {
    const held = await timed(env(), code);
    expect(held.result.stdout).toBe('done\n');
    expect(held.ms, `${code} took ${held.ms} ms`).toBeLessThan(ms);
    expect(await processesOf(env(), 'tool', 'sleep 5')).toEqual([]);
  });

  it('kill -9 -1 from tool code leaves the environment working and gated', async () => {
    const result = await run(
      env(),
      'sleep 307 & sleep 0.1; kill -9 -1; echo "after $?"; sleep 0.1; pgrep -c -x sleep',
    );
    expect(result.stdout).toBe('after 0\n0\n');
    await expectWorkingAndGated(env());
  });

  it('a fork bomb is contained and the environment works afterwards', async () => {
    await withEnvironment(controller, { toolTimeoutMs: 3000, sources: GATED }, async (bombed) => {
      const { ms } = await timed(bombed, ':(){ :|:& };:');
      expect(ms).toBeLessThan(20_000);
      expect((await run(bombed, COUNT_TOOL_PROCESSES)).stdout).toBe('0\n');
      await expectWorkingAndGated(bombed);
    });
  });
});

describe('background_processes: true', () => {
  const env = sharedEnvironment({ backgroundProcesses: true });

  it('lets detached processes outlive the call, and later calls too', async () => {
    await run(
      env(),
      'nohup sleep 311 >/dev/null 2>&1 & setsid sleep 312 >/dev/null 2>&1 & sleep 313 >/dev/null 2>&1 &',
    );
    for (let i = 0; i < 2; i++) {
      const alive = (
        await run(env(), 'ps -eo user:12,cmd --no-headers | grep "^tool .*sleep 31[123]$" | sort')
      ).stdout;
      expect(
        alive
          .split('\n')
          .filter(Boolean)
          .map((line) => line.replace(/ +/g, ' ')),
      ).toEqual(['tool sleep 311', 'tool sleep 312', 'tool sleep 313']);
    }
  });
});

describe('memory pressure', () => {
  // 40 processes of ~15 MB each (python plus 6 MB touched) in a 128 MiB container: each is smaller
  // than the sandbox agent, which the kernel's OOM killer would pick first by size alone.
  const MEMORY_BOMB = `python3 -c "
import os, time
kids = []
for _ in range(40):
    pid = os.fork()
    if pid == 0:
        block = bytearray(6 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(3)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print('bomb done')"`;

  it('kills tool processes, never the agent: the environment works and is gated after', async () => {
    await withEnvironment(
      controller,
      { sandbox: { memoryMb: 128 }, sources: GATED, toolTimeoutMs: 30_000 },
      async (squeezed) => {
        const bombed = await squeezed.call(bash(MEMORY_BOMB));
        expect(bombed.blocked).toBe(false);
        await expectWorkingAndGated(squeezed);
      },
    );
  });
});

describe('background_processes: true with the pid limit used up', () => {
  const env = sharedEnvironment({
    backgroundProcesses: true,
    sandbox: { pidsLimit: 64 },
    sources: GATED,
  });
  // Forks sleeping children until the kernel refuses, then exits: they keep every pid taken.
  const FILL_PIDS = `python3 -c "
import os, time
for _ in range(1000):
    try:
        if os.fork() == 0:
            os.closerange(0, 3)
            time.sleep(600)
            os._exit(0)
    except OSError:
        break
"`;

  it('a gate still runs (and blocks): tool processes are killed to make room for it', async () => {
    await run(env(), FILL_PIDS);
    const blocked = await env().call(bash('echo FORBIDDEN > /workspace/ran'));
    expect(blocked.hooks.map((record) => record.outcome)).toEqual(['deny']);
    expect([blocked.blocked, blocked.reason]).toEqual([true, 'forbidden word']);
    await expectWorkingAndGated(env());
    expect((await run(env(), 'ls /workspace/ran 2>&1; true')).stdout).toMatch(/No such file/);
  });
});

describe('background_processes: true, hooks and busy tool processes', () => {
  // ~100 ms of CPU, then a deny: sharing one CPU with 40 busy loops it would need seconds.
  const BUSY_GATE = `python3 -c "
import json, sys
payload = json.load(sys.stdin)
sum(range(3_000_000))
if 'FORBIDDEN' in json.dumps(payload):
    print(json.dumps({'decision': 'deny', 'reason': 'busy gate'}))"`;
  const env = sharedEnvironment({
    backgroundProcesses: true,
    sources: [
      hooksJson({
        gate: { pre_tool_execution: [rule('code_execution', { command: BUSY_GATE, timeout: 1 })] },
      }),
    ],
  });
  const SPIN = 'for i in $(seq 40); do (while :; do :; done) >/dev/null 2>&1 & done';
  const STATES = `ps -u tool -o stat=,args= | grep -v -e ps -e grep | awk '{print substr($1, 1, 1)}' | sort | uniq -c | tr -s ' '`;

  it('are stopped while a hook runs, so they cannot starve a gate into its timeout; then go on', async () => {
    await run(env(), SPIN);
    const blocked = await env().call(bash('echo FORBIDDEN'));
    expect(blocked.hooks.map((record) => [record.outcome, record.reason])).toEqual([
      ['deny', 'busy gate'],
    ]);
    // The 40 loops (and the subshells that run them) run again: none is left stopped.
    const states = (await run(env(), STATES)).stdout;
    expect(states).not.toMatch(/ T\b/);
    expect(states).toMatch(/^ ?4\d R$/m);
  });
});

describe('hook timeouts and hook leftovers', () => {
  const env = sharedEnvironment({
    sources: [
      hooksJson({
        lenient: {
          pre_tool_execution: [
            rule('code_execution', {
              command: 'if grep -q SLOW_ALLOW; then sleep 10; fi',
              timeout: 1,
            }),
          ],
        },
        strict: {
          pre_tool_execution: [
            rule('code_execution', {
              // Under on_error "deny" only an explicit allow lets a call through.
              command: `if grep -q SLOW_DENY; then sleep 10; fi; echo '{"decision":"allow"}'`,
              timeout: 1,
              on_error: 'deny',
            }),
          ],
        },
        leaky: {
          pre_tool_execution: [
            rule('code_execution', {
              command: 'if grep -q LEAK_HELD; then sleep 321 & fi; echo "{}"',
              timeout: 4,
            }),
            rule('code_execution', {
              command: 'if grep -q LEAK_DETACHED; then sleep 322 >/dev/null 2>&1 & fi; exit 0',
              timeout: 4,
            }),
            rule('code_execution', {
              command: 'if grep -q LEAK_NOHUP; then nohup sleep 323 >/dev/null 2>&1 & fi; exit 0',
              timeout: 4,
            }),
          ],
        },
      }),
    ],
  });

  it('a hook past its timeout is recorded as timeout and the call is allowed', async () => {
    const { result, ms, outcome } = await timed(env(), 'echo SLOW_ALLOW');
    expect(result.stdout).toBe('SLOW_ALLOW\n');
    expect(ms).toBeLessThan(5000);
    const hook = outcome.hooks.find((record) => record.group === 'lenient')!;
    expect([hook.outcome, hook.reason]).toEqual(['timeout', 'timed out after 1 s']);
    expect(
      env()
        .records()
        .some(
          (entry) => entry.kind === 'hook' && (entry as { outcome?: string }).outcome === 'timeout',
        ),
    ).toBe(true);
    expect(await processesOf(env(), 'hook', 'sleep 10')).toEqual([]);
  });

  it('with on_error "deny" a hook timeout blocks the call', async () => {
    const started = Date.now();
    const outcome = await env().call(bash('echo SLOW_DENY > /workspace/ran'));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toMatch(/timed out after 1 s.*on_error is "deny"/);
    expect(outcome.hooks.find((record) => record.group === 'strict')?.outcome).toBe('timeout');
    expect((await run(env(), 'ls /workspace/ran 2>&1; true')).stdout).toMatch(/No such file/);
    expect(await processesOf(env(), 'hook', 'sleep 10')).toEqual([]);
  });

  // A hook's leftovers are not tool processes, so the after-call sweep does not reach them; only its
  // process group is killed, and only when it times out or holds the output pipe open.
  it.each([
    ['LEAK_HELD', 'sleep 321'],
    ['LEAK_DETACHED', 'sleep 322'],
    ['LEAK_NOHUP', 'sleep 323'],
  ])('a hook that forks a background sleep (%s) leaves nothing behind', async (word, needle) => {
    const { ms, outcome } = await timed(env(), `echo ${word}`);
    expect(ms).toBeLessThan(3000);
    expect(
      outcome.hooks.every(
        (record) => record.outcome === 'allow' || record.outcome === 'unrecognized',
      ),
    ).toBe(true);
    expect(
      await processesOf(env(), 'hook', needle),
      `hook process left running after the call: ${needle}`,
    ).toEqual([]);
  });
});

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
    expect((outcome.result as unknown as Exec).exit_code).toBe(0);
    expect(outcome.hooks.find((record) => record.group === 'deaf')?.outcome).toBe('unrecognized');
  });

  it('a post handler gets the whole capped 1 MiB result', async () => {
    const outcome = await env().call(bash(`head -c ${2 * 1024 * 1024} /dev/zero | tr '\\0' g`));
    expect((outcome.result as unknown as Exec).stdout.length).toBe(1024 * 1024);
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
    const result = outcome.result as unknown as Exec;
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
