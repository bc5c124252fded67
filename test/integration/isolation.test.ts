// docs/contract.md §2 against real containers: tool code can change nothing outside /workspace, cannot touch the
// gates or the hook state dir, holds no capabilities, cannot reach hooks or the agent, has no network,
// and every container has the documented limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/sandbox-options.js';
import { execResultOf, toolErrorOf } from '../../src/tools/results.js';
import type { ExecResult } from '../../src/tools/types.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';

const controller = useController();

/** Runs bash as tool code; the call must not be blocked. */
async function run(environment: Environment, code: string): Promise<ExecResult> {
  const outcome = await environment.call(bash(code));
  expect(outcome.blocked, `blocked: ${outcome.reason}`).toBe(false);
  return execResultOf(outcome);
}

/** Calls a file tool; returns its result (`{error}` on failure). */
async function fileTool(environment: Environment, name: string, args: Record<string, unknown>) {
  const outcome = await environment.call({ name, args });
  expect(outcome.blocked, `blocked: ${outcome.reason}`).toBe(false);
  return outcome;
}

const deny = (reason: string) => `echo '{"decision":"deny","reason":"${reason}"}'`;
const GATE = `#!/bin/sh\n# Denies every call whose payload mentions the forbidden word.\nif grep -q FORBIDDEN; then ${deny('forbidden word')}; fi\nexit 0\n`;
const REL_GATE = `#!/bin/sh\nif grep -q RELGATE; then ${deny('relative gate')}; fi\nexit 0\n`;
// Imports json from cwd /workspace if the hook's Python put cwd on sys.path (it must not).
const PY_GATE = `python3 -c "import json, sys; p = json.load(sys.stdin); print(json.dumps({'decision': 'deny', 'reason': 'python gate'}) if 'PYGATE' in json.dumps(p) else '{}')"`;
const STATE_HOOK = `#!/usr/bin/env python3
import json, os, sys
mode, state, payload = sys.argv[1], os.environ['HOOKBOX_STATE_DIR'], sys.stdin.read()
def path(name): return os.path.join(state, name)
if mode == 'write':
    open(path('by-pre'), 'w').write(payload)
elif mode == 'copy':
    open(path('by-post'), 'w').write(open(path('by-pre')).read())
elif mode == 'report' and 'REPORT_STATE' in payload:
    print(json.dumps({'decision': 'deny', 'reason': 'state: ' + open(path('by-post')).read()}))
elif mode == 'whoami' and 'MARK_UID' in payload:
    print(json.dumps({'decision': 'deny', 'reason': 'uid=%d gid=%d' % (os.getuid(), os.getgid())}))
`;

const GATED_SOURCES = [
  hooksJson({
    gates: {
      pre_tool_execution: [
        rule('*', '/.agents/gate.sh'),
        rule('code_execution', 'sh .agents/rel-gate.sh', PY_GATE),
      ],
    },
    first: {
      pre_tool_execution: [rule('*', '/.agents/state.py write', '/.agents/state.py whoami')],
    },
    second: { post_tool_execution: [rule('*', '/.agents/state.py copy')] },
    third: { pre_tool_execution: [rule('*', '/.agents/state.py report')] },
  }),
  inline('.agents/gate.sh', GATE),
  inline('.agents/rel-gate.sh', REL_GATE),
  inline('.agents/state.py', STATE_HOOK),
  inline('workspace/run.sh', '#!/bin/sh\necho ran\n'),
  inline('workspace/data/notes.txt', 'notes\n'),
  inline('workspace/lib.py', 'print(1)\n'),
];

/** Every gate still fires, an innocent call still runs, and /.agents is exactly as injected. */
async function expectStillGated(environment: Environment): Promise<void> {
  for (const [word, reason] of [
    ['FORBIDDEN', 'forbidden word'],
    ['RELGATE', 'relative gate'],
    ['PYGATE', 'python gate'],
  ]) {
    const outcome = await environment.call(bash(`echo ${word}`));
    expect([word, outcome.blocked, outcome.reason]).toEqual([word, true, reason]);
  }
  expect((await run(environment, 'echo fine')).stdout).toBe('fine\n');
  const listing = await run(
    environment,
    'cd /.agents && stat -c "%n %u %a %s" * && cat gate.sh rel-gate.sh state.py && ls -A /workspace/.agents',
  );
  expect(listing.stdout).toBe(
    `gate.sh 0 755 ${GATE.length}\nhooks.json 0 644 ${GATED_SOURCES[0]!.content.length}\nrel-gate.sh 0 755 ${REL_GATE.length}\n` +
      `state.py 0 755 ${STATE_HOOK.length}\n${GATE}${REL_GATE}${STATE_HOOK}gate.sh\nhooks.json\nrel-gate.sh\nstate.py\n`,
  );
}

/** Tries to kill, trace and read every process not of the tool user; logs what each try gave. */
const ATTACKER = `import ctypes, errno, os, time
libc = ctypes.CDLL(None, use_errno=True)
def res(f):
    try:
        r = f()
    except OSError as e:
        return errno.errorcode[e.errno]
    return errno.errorcode[ctypes.get_errno()] if r == -1 else 'ok'
done, log = set(), open('/workspace/attack.log', 'w')
beats = open('/workspace/attack.beats', 'w')
end = time.time() + 20
while time.time() < end and not os.path.exists('/workspace/stop'):
    beats.write('%f\\n' % time.time()); beats.flush()
    for p in [int(d) for d in os.listdir('/proc') if d.isdigit()]:
        try:
            uid = os.stat('/proc/%d' % p).st_uid
            comm = open('/proc/%d/comm' % p).read().strip()
        except OSError: continue
        if p in done or uid == 1000: continue
        done.add(p)
        fields = [res(lambda: os.kill(p, 9)), res(lambda: libc.ptrace(16, p, 0, 0)),
                  res(lambda: open('/proc/%d/mem' % p, 'rb').read(1)), res(lambda: open('/proc/%d/environ' % p, 'rb').read())]
        log.write('%d %d %s %s\\n' % (p, uid, comm, ' '.join(fields))); log.flush()
    time.sleep(0.01)
`;

const SLOW = `grep -q SLOW_GATE && sleep 2 && ${deny('slow gate survived')}; exit 0`;
const SLOW_GATE = hooksJson({ slow: { pre_tool_execution: [rule('code_execution', SLOW)] } });

let env: Environment;
beforeAll(async () => {
  env = await (await controller()).createEnvironment({ sources: GATED_SOURCES });
});
afterAll(async () => {
  await env?.delete();
});

describe('nothing outside /workspace is writable', () => {
  const DEVICES = '/dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty'.split(' ');
  const OTHERS = [
    '/dev/ptmx',
    '/dev/pts/ptmx',
    '/dev/stdin',
    '/dev/stdout',
    '/dev/stderr',
    '/dev/fd',
  ];

  it('a sweep of every mount (but /proc and /sys) finds only /workspace (not .agents) and device nodes', async () => {
    const sweep = await run(
      env,
      'find / \\( -path /proc -o -path /sys \\) -prune -o -writable -print 2>/dev/null; true',
    );
    const writable = sweep.stdout.split('\n').filter(Boolean);
    expect(writable).toContain('/workspace');
    expect(writable).toContain('/workspace/data/notes.txt');
    const allowed = (path: string) =>
      /^\/workspace(\/|$)/.test(path) && !/^\/workspace\/\.agents(\/|$)/.test(path);
    const devices = [...DEVICES, ...OTHERS];
    expect(writable.filter((path) => !allowed(path) && !devices.includes(path))).toEqual([]);
  });

  it('/proc/sys, /sys and /proc/sysrq-trigger are not writable either', async () => {
    const sweep = await run(
      env,
      'find /proc/sys /sys -writable 2>/dev/null; for f in /proc/sysrq-trigger /proc/sys/kernel/hostname /sys/kernel/uevent_helper; do [ -w $f ] && echo $f; done; true',
    );
    expect(sweep.stdout).toBe('');
    // Docker masks these two with /dev/null (char 1:3), which is why they look writable.
    expect((await run(env, 'stat -L -c "%F %t:%T" /proc/keys /proc/timer_list')).stdout).toBe(
      'character special file 1:3\ncharacter special file 1:3\n',
    );
    const write = await run(
      env,
      'echo hacked > /proc/sys/kernel/hostname; echo c > /proc/sysrq-trigger',
    );
    expect(write.stderr).toMatch(/Read-only file system|Permission denied/);
  });

  it('creating a file or folder fails in every system folder, Docker tmpfs included; /workspace works', async () => {
    const dirs = `/ /etc /tmp /var/tmp /dev /dev/shm /dev/mqueue /dev/pts /run /run/lock /home /root
      /opt /opt/hookbox /opt/hookbox/agents-rw /usr/local/bin /var/lib/hookbox /var/log /proc /sys/fs/cgroup`;
    const probe = await run(
      env,
      `for d in ${dirs.split(/\s+/).join(' ')}; do (echo x > "$d/hbx-probe") 2>/dev/null && echo "WROTE $d"; mkdir "$d/hbx-dir" 2>/dev/null && echo "MKDIR $d"; ` +
        `python3 -c "import sys; open(sys.argv[1] + '/hbx-py', 'w')" "$d" 2>/dev/null && echo "PY $d"; done; ` +
        'echo ok > /workspace/probe && mkdir -p /workspace/d && echo ok > "$TMPDIR/t" && cat /workspace/probe "$TMPDIR/t"',
    );
    expect(probe.stdout).toBe('ok\nok\n');
    expect(probe.exit_code).toBe(0);
  });

  it('files injected into /workspace belong to the tool user; only a #! source is executable', async () => {
    const listing = await run(
      env,
      'stat -c "%n %u:%g %a" run.sh data data/notes.txt lib.py && ./run.sh && echo more >> data/notes.txt && touch data/new',
    );
    expect(listing.stdout).toBe(
      'run.sh 1000:1000 755\ndata 1000:1000 755\ndata/notes.txt 1000:1000 644\nlib.py 1000:1000 644\nran\n',
    );
    expect(listing.exit_code).toBe(0);
  });
});

describe('/.agents cannot be changed, moved, deleted or shadowed', () => {
  // One attack a line, through /.agents, its mirror /workspace/.agents and root's writable mount.
  const attacks = String.raw`rm -f /.agents/gate.sh
    rm -rf /.agents/*
    mv /.agents/gate.sh /.agents/gate.old
    mv /.agents /agents-old
    chmod 000 /.agents/gate.sh
    chmod 777 /.agents
    ln -sf /bin/true /.agents/gate.sh
    cp /bin/true /.agents/gate.sh
    printf "#!/bin/sh\nexit 0\n" > /.agents/gate.sh
    truncate -s 0 /.agents/gate.sh
    echo "{}" > /.agents/hooks.json
    touch /.agents/new.sh
    mount -t tmpfs none /.agents
    mount --bind /workspace/data /.agents
    rm -f .agents/rel-gate.sh
    cp /bin/true .agents/rel-gate.sh
    ln -sf /bin/true /workspace/.agents/rel-gate.sh
    mv .agents .agents-old
    rm -rf /workspace/.agents
    rmdir /workspace/.agents
    python3 -c "import os; os.rename('/workspace/.agents', '/workspace/x')"
    mount -t tmpfs none /workspace/.agents
    ln /.agents/gate.sh /workspace/hard
    touch /opt/hookbox/agents-rw/gate.sh
    ls /opt/hookbox
    unshare -Urm sh -c "mount -t tmpfs none /.agents"`
    .split('\n')
    .map((line) => line.trim());

  it.each(attacks)('tool code: %s fails and the gates still fire', async (attack) => {
    const result = await run(env, attack);
    expect(result.exit_code, result.stdout).not.toBe(0);
    await expectStillGated(env);
  });

  const writes =
    `/.agents/hooks.json /.agents/gate.sh /.agents/new.sh ../.agents/gate.sh .agents/gate.sh
    .agents/rel-gate.sh /workspace/.agents/new .agents/sub/x /opt/hookbox/agents-rw/gate.sh
    ../opt/hookbox/agents-rw/hooks.json`.split(/\s+/);
  it.each(writes)('write_file %s gives an error and the gates still fire', async (path) => {
    const outcome = await fileTool(env, 'write_file', { path, content: '#!/bin/sh\nexit 0\n' });
    expect(toolErrorOf(outcome)).toEqual(expect.any(String));
    await expectStillGated(env);
  });

  const deletes = `/.agents/gate.sh /.agents/hooks.json ../.agents/gate.sh .agents/rel-gate.sh
    /workspace/.agents/state.py /opt/hookbox/agents-rw/gate.sh`.split(/\s+/);
  it.each(deletes)('delete_file %s gives an error and the gates still fire', async (path) => {
    const outcome = await fileTool(env, 'delete_file', { path });
    expect(toolErrorOf(outcome)).toEqual(expect.any(String));
    await expectStillGated(env);
  });

  it('symlinks from /workspace into the gates lead nowhere writable', async () => {
    const links = await run(
      env,
      'ln -s /.agents/gate.sh l1 && ln -s /.agents ag && ln -s /opt/hookbox/agents-rw rw && ln -s /workspace/.agents/rel-gate.sh l2 && echo made',
    );
    expect(links.stdout).toBe('made\n');
    const tries = [
      ...['l1', 'ag/gate.sh', 'ag/new.sh', 'rw/gate.sh', 'l2'].map((path) => ['write_file', path]),
      ...['ag/gate.sh', 'rw/gate.sh'].map((path) => ['delete_file', path]),
    ] as [string, string][];
    for (const [name, path] of tries) {
      const args = name === 'write_file' ? { path, content: 'exit 0\n' } : { path };
      expect(toolErrorOf(await fileTool(env, name, args)), `${name} ${path}`).toEqual(
        expect.any(String),
      );
    }
    const shell = 'echo "exit 0" > l1; echo "exit 0" > ag/gate.sh; cp /bin/true rw/gate.sh';
    expect((await run(env, shell)).exit_code).not.toBe(0);
    expect((await fileTool(env, 'delete_file', { path: 'l1' })).result).toEqual({ ok: true }); // the link only
    await expectStillGated(env);
  });

  it('a Python gate does not import modules that tool code plants in its cwd /workspace', async () => {
    const plants = {
      'json.py': 'def load(f):\n    return {}\ndef dumps(o):\n    return "{}"\n',
      'sitecustomize.py': 'import sys; sys.exit(0)\n',
    };
    for (const [path, content] of Object.entries(plants)) {
      expect((await fileTool(env, 'write_file', { path, content })).result).toEqual({ ok: true });
    }
    await expectStillGated(env);
    for (const path of Object.keys(plants)) {
      expect((await fileTool(env, 'delete_file', { path })).result).toEqual({ ok: true });
    }
  });
});

describe('the hook state dir belongs to hooks alone', () => {
  const STATE = '/var/lib/hookbox/state';

  it('tool code can neither list, read nor write it', async () => {
    const result = await run(
      env,
      `ls ${STATE}; cat ${STATE}/by-pre; touch ${STATE}/x; echo PWNED > ${STATE}/by-post; rm -f ${STATE}/by-post; cd ${STATE}; ls -ld ${STATE}`,
    );
    expect(result.stderr.match(/Permission denied/g)?.length).toBeGreaterThanOrEqual(5);
    expect(result.stdout).toMatch(/^drwx------ \d+ hook hook /);
    expect((await run(env, 'env | grep -c HOOKBOX_; true')).stdout).toBe('0\n');
  });

  it.each([
    ['read_file', { path: `${STATE}/by-pre` }],
    ['write_file', { path: `${STATE}/by-post`, content: 'PWNED' }],
    ['write_file', { path: `${STATE}/new`, content: 'PWNED' }],
    ['list_files', { path: STATE }],
    ['delete_file', { path: `${STATE}/by-pre` }],
    ['read_file', { path: `../var/lib/hookbox/state/by-post` }],
  ])('%s %j gives an error', async (name, args) => {
    const outcome = await fileTool(env, name, args);
    expect(toolErrorOf(outcome)).toMatch(/Permission denied/);
  });

  it('a pre hook writes there and a post hook of another group reads it; a later hook sees that', async () => {
    const first = await env.call(bash('echo STATE_ONE'));
    expect(first.blocked).toBe(false);
    const post = first.hooks.filter((hook) => hook.event === 'post_tool_execution');
    expect(post.map((hook) => [hook.group, hook.outcome])).toEqual([['second', 'ok']]);
    const report = await env.call(bash('echo REPORT_STATE'));
    expect(report.blocked).toBe(true);
    expect(report.reason).toMatch(/^state: \{.*echo STATE_ONE/s);
    expect(report.reason).not.toContain('PWNED');
  });
});

describe('tool code runs unprivileged, apart from hooks and the agent', () => {
  it('as uid 1000 with no capabilities at all, no-new-privileges, HOME and TMPDIR in /workspace', async () => {
    const result = await run(
      env,
      'id -u; id -g; id -G; grep -E "^(Uid|Gid|CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs):" /proc/self/status; echo "$HOME $TMPDIR"',
    );
    const lines = result.stdout.split('\n');
    const status = Object.fromEntries(lines.map((line) => line.split(/:\s+/) as [string, string]));
    const ids = ['1000', '1000', '1000', '1000\t1000\t1000\t1000', '1000\t1000\t1000\t1000'];
    expect([...lines.slice(0, 3), status.Uid, status.Gid]).toEqual(ids);
    const caps = [status.CapInh, status.CapPrm, status.CapEff, status.CapAmb, status.NoNewPrivs];
    expect(caps).toEqual([...Array<string>(4).fill('0000000000000000'), '1']);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(
      /^\/workspace(\/\S*)? \/workspace\/\S+$/,
    );
  });

  it('inherits from the agent only stdio, default signals, umask 022 and a session of its own', async () => {
    const result = await run(
      env,
      // `cat` shows what any command gets; `ls` lists its own descriptors (3 is the listing itself).
      'grep -E "^(SigBlk|SigIgn|Groups):" /proc/self/status; ls /proc/self/fd | tr "\\n" " "; echo; umask; ' +
        'ps -o sid= -o pgid= -p $$; echo $$; yes | head -c 1 >/dev/null; echo "pipe ${PIPESTATUS[0]}"',
    );
    const [groups, sigBlk, sigIgn, fds, umask, sidPgid, shellPid, pipe] = result.stdout
      .trim()
      .split('\n');
    expect(groups!.trim()).toBe('Groups:');
    expect(sigBlk).toBe('SigBlk:\t0000000000000000');
    expect(sigIgn).toBe('SigIgn:\t0000000000000000');
    expect(fds!.trim()).toBe('0 1 2 3');
    expect(umask).toBe('0022');
    expect(sidPgid!.trim().split(/\s+/)).toEqual([shellPid, shellPid]);
    // SIGPIPE at its default: `yes` dies of it (128 + 13) instead of failing a write.
    expect(pipe).toBe('pipe 141');
  });

  it('under memory pressure tool code is killed first: oom_score_adj 1000 for it, 500 for hooks, 0 for the agent', async () => {
    const hook = `grep -q MARK_OOM && echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"$(cat /proc/self/oom_score_adj)\\"}"; exit 0`;
    await withEnvironment(
      controller,
      { sources: [hooksJson({ oom: { pre_tool_execution: [rule('*', hook)] } })] },
      async (isolated) => {
        const outcome = await isolated.call(bash('echo MARK_OOM'));
        expect([outcome.blocked, outcome.reason]).toEqual([true, '500']);
        const result = await run(
          isolated,
          'cat /proc/self/oom_score_adj; cat /proc/$(pgrep -u root -x python3)/oom_score_adj',
        );
        expect(result.stdout).toBe('1000\n0\n');
      },
    );
  });

  it('hooks run as another unprivileged uid', async () => {
    const outcome = await env.call(bash('echo MARK_UID'));
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toBe('uid=1001 gid=1001');
    expect((await run(env, 'id -u')).stdout).toBe('1000\n');
  });

  it('cannot read the memory or environment of the agent or tini', async () => {
    const result = await run(
      env,
      'for p in $(pgrep -u root -f agent/main.py); do head -c 1 /proc/$p/mem && echo "MEM $p"; cat /proc/$p/environ && echo "ENV $p"; ls /proc/$p/fd && echo "FD $p"; done; pgrep -d " " -u root -f agent/main.py',
    );
    expect(result.stdout).toMatch(/^1 \d+\n$/); // tini and the agent, and nothing of theirs was read
    expect(result.stderr.match(/Permission denied/g)?.length).toBe(6);
  });

  it.each([
    ['kill -9 1', true],
    ['kill -9 $(pgrep -u root -f agent/main.py)', true],
    ['pkill -9 -u root', true],
    ['pkill -9 -u hook; pkill -9 -u 1001', false], // no hook process is alive between calls
    ['kill -9 $(pgrep -f agent)', false], // also matches this very bash, which it kills
    ['kill -9 -1', false], // reaches only the tool user's own processes
  ])(
    '%s: refused or harmless; the environment still works and is gated',
    async (attack, refused) => {
      const result = await run(env, `${attack}; echo "after $?"`);
      if (refused) {
        expect(result.stdout).toBe('after 1\n');
        expect(result.stderr).toMatch(/Operation not permitted/);
      }
      expect((await run(env, 'ps -o user= -p 1; pgrep -u root -c -f agent/main.py')).stdout).toBe(
        'root\n2\n',
      );
      await expectStillGated(env);
    },
  );

  // Tool code never runs beside a hook: without background processes none outlives its call, and
  // background ones are stopped while a hook runs. Beneath that, uids: every attempt on the agent
  // and tini (root) is refused.
  it('cannot signal, trace or read a running hook, or the agent and tini', async () => {
    await withEnvironment(
      controller,
      { backgroundProcesses: true, sources: [SLOW_GATE, inline('workspace/attack.py', ATTACKER)] },
      async (isolated) => {
        // The attacker must be beating before the gate runs (on a loaded machine python3 can take
        // longer than any fixed sleep to start, and a late start would look like no pause at all).
        await run(
          isolated,
          'nohup python3 attack.py >/dev/null 2>&1 & for i in $(seq 500); do [ -s attack.beats ] && break; sleep 0.02; done; sleep 0.1',
        );
        const gated = await isolated.call(bash('echo SLOW_GATE'));
        expect([gated.blocked, gated.reason]).toEqual([true, 'slow gate survived']);
        const { stdout } = await run(
          isolated,
          'touch stop; sleep 0.2; cat attack.log; echo ---; cat attack.beats',
        );
        const [attempts, beats] = stdout.split('---\n');
        const log = attempts!.trim().split('\n');
        // Nothing the attacker tried on a process of root or of the hook user succeeded.
        for (const line of log)
          expect(line, line).toMatch(
            /^\d+ (0|1001) \S+ (EPERM|ESRCH) (EPERM|ESRCH) (EACCES|EPERM|ENOENT|ESRCH) (EACCES|EPERM|ENOENT|ESRCH)$/,
          );
        const seen = log.map((line) => line.split(' ').slice(1, 3).join(' '));
        expect(seen).toEqual(expect.arrayContaining(['0 tini', '0 python3']));
        // It was stopped for the gate's 2 s sleep (its loop beats every 10 ms otherwise), so it
        // never met a hook process.
        const times = beats!.trim().split('\n').map(Number);
        const longestGap = Math.max(...times.slice(1).map((time, i) => time - times[i]!));
        expect(longestGap).toBeGreaterThan(1.8);
        expect(log.filter((line) => line.split(' ')[1] === '1001')).toEqual([]);
      },
    );
  });
});

describe('network and limits', () => {
  it('has no network interface but lo and cannot connect out', async () => {
    const result = await run(
      env,
      `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; python3 -c "
import socket, time
t = time.time()
try:
    socket.create_connection(('1.1.1.1', 80), timeout=5); print('connected')
except OSError as e:
    print('refused', round(time.time() - t, 1) < 1)"`,
    );
    expect(result.stdout).toBe('lo\nrefused True\n');
  });

  const cgroup = (v1: string, v2: string) =>
    `cat /sys/fs/cgroup/${v1} 2>/dev/null || cat /sys/fs/cgroup/${v2}`;
  // cgroup v1 here; v2 spells them differently (its swap limit is on top of memory.max).
  const readLimits = `${cgroup('pids/pids.max', 'pids.max')}; ${cgroup('memory/memory.limit_in_bytes', 'memory.max')}
    ${cgroup('cpu/cpu.cfs_quota_us', 'cpu.max')}; ${cgroup('cpu/cpu.cfs_period_us', 'cpu.max')}
    cat /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes 2>/dev/null ||
      echo $(( $(cat /sys/fs/cgroup/memory.max) + $(cat /sys/fs/cgroup/memory.swap.max) ))`;
  const cpuCores = (quota: string, period: string) =>
    Number(quota.split(' ')[0]) / Number(period.split(' ').at(-1));

  it('the documented default CPU, memory and pid limits are in force', async () => {
    const [pids, memory, quota, period, withSwap] = (await run(env, readLimits)).stdout
      .trim()
      .split('\n');
    expect(Number(pids)).toBe(SANDBOX_DEFAULTS.pidsLimit);
    expect(Number(memory)).toBe(SANDBOX_DEFAULTS.memoryMb * 1024 * 1024);
    expect(Number(withSwap)).toBe(SANDBOX_DEFAULTS.memoryMb * 1024 * 1024); // no swap on top
    expect(cpuCores(quota!, period!)).toBe(SANDBOX_DEFAULTS.cpus);
  });

  it('per-environment limits are applied', async () => {
    const sandbox = { memoryMb: 256, cpus: 0.5, pidsLimit: 64 };
    await withEnvironment(controller, { sandbox }, async (limited) => {
      const [pids, mem, quota, period] = (await run(limited, readLimits)).stdout.split('\n');
      const limits = [Number(pids), Number(mem) / 2 ** 20, cpuCores(quota!, period!)];
      expect(limits).toEqual([64, 256, 0.5]);
    });
  });
});
