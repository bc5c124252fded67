"""Running commands as an unprivileged user: output caps, timeouts that kill the process group, and
the sweep that kills whatever a call left behind."""

import asyncio
import os
import signal
import time
from dataclasses import dataclass

READ_CHUNK_BYTES = 65536
# After the main process exits, a background child may still hold its stdout; wait this long for
# the pipes to close before killing the group (without it a call would hang on such children).
PIPE_GRACE_SECONDS = 0.05


@dataclass
class RunResult:
    exit_code: int
    signal: int | None
    stdout: str
    stderr: str
    timed_out: bool
    truncated: bool
    duration_ms: float


class CappedBuffer:
    def __init__(self, cap_bytes):
        self.cap_bytes = cap_bytes
        self.parts = []
        self.size = 0
        self.truncated = False

    def add(self, chunk):
        room = self.cap_bytes - self.size
        if len(chunk) > room:
            self.truncated = True
            chunk = chunk[: max(room, 0)]
        if chunk:
            self.parts.append(chunk)
            self.size += len(chunk)

    def text(self):
        return b"".join(self.parts).decode("utf-8", errors="replace")


async def drain(stream, buffer):
    while True:
        chunk = await stream.read(READ_CHUNK_BYTES)
        if not chunk:
            return
        buffer.add(chunk)


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's Process.wait() also waits for the pipes to close, so a background child holding
    stdout would hold the call; this protocol says when the process itself has exited."""

    def __init__(self, loop):
        super().__init__(limit=READ_CHUNK_BYTES, loop=loop)
        self.exited = loop.create_future()

    def process_exited(self):
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


def _spawn(loop, argv, user, cwd, env, stdin_data):
    return loop.subprocess_exec(
        lambda: _ExitAwareProtocol(loop),
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin_data is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        user=user.uid,
        group=user.gid,
        extra_groups=[],
        # Its own session and process group, so a timeout can kill the whole tree at once.
        start_new_session=True,
        umask=0o022,
    )


async def run(argv, *, user, cwd, env, stdin_data, timeout_ms, output_cap_bytes, sweep_user_after):
    """Runs argv as `user`. With `sweep_user_after`, every process of the user still alive when the
    command ends (or times out) is killed; otherwise only the command's own process group is."""
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await _spawn(loop, argv, user, cwd, env, stdin_data)
    except BlockingIOError:
        # The pid limit is exhausted (a fork bomb left behind): clear the user's processes, retry once.
        await kill_user_processes(user)
        transport, protocol = await _spawn(loop, argv, user, cwd, env, stdin_data)
    pid = transport.get_pid()
    stdout = CappedBuffer(output_cap_bytes)
    stderr = CappedBuffer(output_cap_bytes)
    readers = asyncio.gather(drain(protocol.stdout, stdout), drain(protocol.stderr, stderr))

    async def feed():
        if stdin_data is None:
            return
        try:
            protocol.stdin.write(stdin_data)
            await protocol.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # a handler that does not read its stdin is allowed
        finally:
            try:
                protocol.stdin.close()
            except Exception:
                pass

    feeder = asyncio.ensure_future(feed())
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(protocol.exited), timeout_ms / 1000)
    except asyncio.TimeoutError:
        timed_out = True
        kill_group(pid)
        if sweep_user_after:
            await kill_user_processes(user)
        await protocol.exited
    try:
        await asyncio.wait_for(asyncio.shield(readers), PIPE_GRACE_SECONDS)
    except asyncio.TimeoutError:
        # Children still hold the pipes. Under the sweep they die with every process of the user;
        # background processes that are allowed to live keep running, and we stop reading them.
        if sweep_user_after:
            kill_group(pid)
            await kill_user_processes(user)
            try:
                await asyncio.wait_for(asyncio.shield(readers), 1)
            except asyncio.TimeoutError:
                readers.cancel()
        else:
            readers.cancel()
    else:
        if sweep_user_after:
            await kill_user_processes(user)
    feeder.cancel()
    transport.close()
    code = transport.get_returncode()
    signal_number = -code if code < 0 else None
    return RunResult(
        exit_code=128 + signal_number if signal_number else code,
        signal=signal_number,
        stdout=stdout.text(),
        stderr=stderr.text(),
        timed_out=timed_out,
        truncated=stdout.truncated or stderr.truncated,
        duration_ms=round((time.monotonic() - started) * 1000, 3),
    )


def live_processes_of(user):
    """PIDs of the user's processes that are not zombies (a zombie is dead, only unreaped)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != user.uid:
                continue
            with open(f"/proc/{entry}/stat", "rb") as stat:
                state = stat.read().rsplit(b")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def _signal_all(pids, signal_number):
    for pid in pids:
        try:
            os.kill(pid, signal_number)
        except (ProcessLookupError, PermissionError):
            pass


def _stopped_or_dead(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in (b"T", b"t", b"Z", b"X")


async def kill_user_processes(user, rounds=200):
    """Kills every process of `user`; returns how many were alive at first.

    The agent (root, with CAP_KILL) signals them by pid, with no fork: under a fork bomb the pid
    limit may leave no room for a helper process. First every process is stopped — a stopped
    process cannot fork — round after round until none runs, then all are killed at once.
    """
    first = live_processes_of(user)
    if not first:
        return 0
    for _ in range(rounds):
        pids = live_processes_of(user)
        running = [pid for pid in pids if not _stopped_or_dead(pid)]
        if not running:
            break
        _signal_all(running, signal.SIGSTOP)
        await asyncio.sleep(0)
    for _ in range(rounds):
        pids = live_processes_of(user)
        if not pids:
            break
        _signal_all(pids, signal.SIGKILL)
        await asyncio.sleep(0.002)
    return len(first)
