// The isolation rules of docs/contract.md §2 (test/integration/isolation.test.ts) under gVisor: environments made
// with sandbox.runtime "runsc". Probes are Python, not coreutils: Debian's runsc (2022-12) answers
// statx with AT_NO_AUTOMOUNT — which ls and stat pass — with EINVAL (docs/gvisor.md, Differences).
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { bash, hooksJson, inline, rule, useController } from './helpers.js';
import { execResultOf, toolErrorOf } from '../../src/tools/results.js';
import type { ExecResult } from '../../src/tools/types.js';

const controller = useController();

async function run(environment: Environment, code: string): Promise<ExecResult> {
  const outcome = await environment.call(bash(code));
  expect(outcome.blocked, `blocked: ${outcome.reason}`).toBe(false);
  return execResultOf(outcome);
}

async function python(environment: Environment, code: string): Promise<string> {
  const result = await run(environment, `python3 - <<'PY'\n${code}\nPY`);
  expect(result.stderr).toBe('');
  return result.stdout;
}

const GATE = `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`;

/** Tries `attempt` (a Python expression) on each path; prints `path ERRNAME` or `path ok`. */
const TRY = `import errno, os
def attempt(label, f):
    try:
        f(); print(label, 'ok')
    except OSError as e:
        print(label, errno.errorcode[e.errno])
`;

let env: Environment;

beforeAll(async () => {
  env = await (
    await controller()
  ).createEnvironment({
    sandbox: { runtime: 'runsc' },
    sources: [
      hooksJson({ gates: { pre_tool_execution: [rule(undefined, '.agents/gate.sh')] } }),
      inline('.agents/gate.sh', GATE),
      inline('workspace/data.txt', 'data\n'),
    ],
  });
});
afterAll(async () => {
  if (env) await (await controller()).deleteEnvironment(env.id).catch(() => {});
});

async function expectStillGated(): Promise<void> {
  const denied = await env.call(bash('echo FORBIDDEN'));
  expect([denied.blocked, denied.reason]).toEqual([true, 'forbidden word']);
  expect((await run(env, 'echo fine')).stdout).toBe('fine\n');
  expect((await run(env, 'cat /.agents/gate.sh')).stdout).toBe(GATE);
}

describe('under runsc (gVisor)', () => {
  it('the container runs on the runsc runtime and sees gVisor’s kernel', async () => {
    const info = await new Docker().getContainer(env.sandbox.containerId).inspect();
    expect(info.HostConfig.Runtime).toBe('runsc');
    expect((await run(env, 'uname -r')).stdout).toBe('4.4.0\n');
    // The host cannot reach into gVisor's filesystem: requests go over the stdio
    // (docs/agent-protocol.md, "The stream").
    expect(env.sandbox.transport).toBe('stdio');
  });

  it('tool code is uid 1000 with no capabilities and no_new_privs', async () => {
    const out = await python(
      env,
      `import ctypes, os
libc = ctypes.CDLL(None)
status = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)
print(os.getuid(), os.getgid(), set(os.getgroups()) <= {1000})
print(*[status[k].strip() for k in ('CapInh', 'CapPrm', 'CapEff')])
print('nnp', libc.prctl(39, 0, 0, 0, 0))`,
    );
    expect(out).toBe('1000 1000 True\n0000000000000000 0000000000000000 0000000000000000\nnnp 1\n');
  });

  it('the gates cannot be changed, moved, deleted or shadowed, and still fire', async () => {
    const out = await python(
      env,
      `${TRY}
for base in ['/.agents', '/workspace/.agents', '/opt/hookbox/agents-rw']:
    attempt(base + ' write', lambda: open(base + '/gate.sh', 'w').write('exit 0'))
    attempt(base + ' create', lambda: open(base + '/new.sh', 'w'))
    attempt(base + ' unlink', lambda: os.unlink(base + '/gate.sh'))
    attempt(base + ' rename', lambda: os.rename(base + '/gate.sh', base + '/old'))
    attempt(base + ' chmod', lambda: os.chmod(base + '/gate.sh', 0o777))
    attempt(base + ' symlink', lambda: os.symlink('/bin/true', base + '/link'))
attempt('move /workspace/.agents', lambda: os.rename('/workspace/.agents', '/workspace/x'))
attempt('rmdir /workspace/.agents', lambda: os.rmdir('/workspace/.agents'))`,
    );
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(20);
    for (const line of lines) expect(line, line).toMatch(/ (EROFS|EACCES|EPERM|EBUSY)$/);
    await expectStillGated();
  });

  it('nothing outside /workspace is writable; /workspace is', async () => {
    const out = await python(
      env,
      `${TRY}
for d in ['/', '/etc', '/usr', '/usr/local/bin', '/var', '/var/tmp', '/opt', '/root', '/home', '/tmp', '/run', '/dev/shm', '/dev/mqueue', '/var/lib/hookbox/state']:
    attempt(d, lambda: open(os.path.join(d, 'pwned'), 'w'))
attempt('/workspace', lambda: open('/workspace/mine', 'w').write('x'))`,
    );
    const lines = out.trim().split('\n');
    expect(lines.at(-1)).toBe('/workspace ok');
    for (const line of lines.slice(0, -1)) expect(line, line).toMatch(/ (EROFS|EACCES|EPERM)$/);
  });

  it('the hook state dir cannot be listed or read by tool code', async () => {
    const out = await python(
      env,
      `${TRY}
attempt('list', lambda: os.listdir('/var/lib/hookbox/state'))
attempt('file tool', lambda: None)`,
    );
    expect(out).toContain('list EACCES');
    const result = await env.call({ name: 'list_files', args: { path: '/var/lib/hookbox/state' } });
    expect(toolErrorOf(result)).toMatch(/Permission denied/);
  });

  it('tool code cannot signal the agent or any process not its own; the environment still works', async () => {
    const out = await python(
      env,
      `import errno, os
for pid in sorted(int(p) for p in os.listdir('/proc') if p.isdigit()):
    try:
        if os.stat('/proc/%d' % pid).st_uid == 1000: continue
        os.kill(pid, 9); print(pid, 'killed')
    except OSError as e:
        print(pid, errno.errorcode[e.errno])`,
    );
    const lines = out.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line, line).toMatch(/ (EPERM|ESRCH)$/);
    await expectStillGated();
  });

  it('has no network but loopback', async () => {
    const out = await python(
      env,
      `import socket
print(sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]))
s = socket.socket(); s.settimeout(3)
try:
    s.connect(('1.1.1.1', 80)); print('connected')
except OSError as e:
    print('refused', type(e).__name__)`,
    );
    expect(out).toMatch(/^\['lo'\]\nrefused \w+\n$/);
  });
});
