// README, Security model: nothing tool code makes outlives its call outside /workspace. System V
// shared memory, message queues and semaphores and POSIX message queues (mq_open needs no
// /dev/mqueue mount) would each keep data between calls, and shared memory holds memory that no
// process kill frees: enough of it and every later gate is OOM-killed, which allows.
import { describe, expect, it } from 'vitest';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

const GATE = `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`;
const SOURCES = [
  hooksJson({ gate: { pre_tool_execution: [rule('*', '/.agents/gate.sh')] } }),
  inline('.agents/gate.sh', GATE),
];

// Makes one object of each kind holding SECRET (key 0x4842) and prints what it made.
const STORE = String.raw`import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
def err(): return 'E' + str(ctypes.get_errno())
made = []
shm = libc.shmget(0x4842, 4096, 0o1600)
if shm >= 0:
    addr = libc.shmat(shm, None, 0)
    ctypes.memmove(addr, b'SECRET', 6); made.append('shm')
else: made.append('shm:' + err())
msq = libc.msgget(0x4842, 0o1600)
if msq >= 0:
    buf = ctypes.create_string_buffer(b'\x01\0\0\0\0\0\0\0SECRET')
    libc.msgsnd(msq, buf, 6, 0); made.append('msg')
else: made.append('msg:' + err())
sem = libc.semget(0x4842, 1, 0o1600)
made.append('sem' if sem >= 0 else 'sem:' + err())
mq = libc.mq_open(b'/hookbox', os.O_CREAT | os.O_RDWR, 0o600, None)
if mq >= 0:
    libc.mq_send(mq, b'SECRET', 6, 0); made.append('mq')
else: made.append('mq:' + err())
print(' '.join(made))
`;

// Looks for what STORE left: the kernel's own lists, and the objects by key and name.
const FIND = String.raw`import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
found = []
for kind in ('shm', 'msg', 'sem'):
    rows = open('/proc/sysvipc/' + kind).read().strip().split('\n')[1:]
    if rows: found.append(kind + ':' + str(len(rows)))
if libc.shmget(0x4842, 0, 0) >= 0: found.append('shm-key')
if libc.msgget(0x4842, 0) >= 0: found.append('msg-key')
if libc.mq_open(b'/hookbox', os.O_RDONLY) >= 0: found.append('mq-name')
print(' '.join(found) or 'nothing')
`;

// Fills memory with shared memory segments, 8 MiB at a time, touching every page.
const FILL = String.raw`import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
total = 0
while total < 240:
    shm = libc.shmget(0, 8 << 20, 0o1600)
    if shm < 0: break
    addr = libc.shmat(shm, None, 0)
    ctypes.memset(addr, 1, 8 << 20)
    total += 8
print('filled', total)
`;

describe('System V IPC and POSIX message queues', () => {
  it('keep no data between calls: none can be made at all', async () => {
    await withEnvironment(
      controller,
      {
        sources: [
          ...SOURCES,
          inline('workspace/store.py', STORE),
          inline('workspace/find.py', FIND),
        ],
      },
      async (environment) => {
        const stored = await environment.call(bash('python3 store.py'));
        expect(execResultOf(stored).stdout).toBe('shm:E28 msg:E28 sem:E22 mq:E28\n');
        const found = await environment.call(bash('python3 find.py'));
        expect(execResultOf(found).stdout).toBe('nothing\n');
      },
    );
  });

  it('shared memory cannot hold the container memory past the call: later gates run and block', async () => {
    await withEnvironment(
      controller,
      { sources: [...SOURCES, inline('workspace/fill.py', FILL)], sandbox: { memoryMb: 256 } },
      async (environment) => {
        const fill = await environment.call(bash('python3 fill.py'));
        expect(execResultOf(fill).stdout).toBe('filled 0\n');
        for (let i = 0; i < 3; i++) {
          const gated = await environment.call(bash('echo FORBIDDEN'));
          expect([gated.blocked, gated.hooks[0]?.outcome]).toEqual([true, 'deny']);
        }
      },
    );
  });
});
