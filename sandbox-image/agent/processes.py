"""Running commands as an unprivileged user: output caps, timeouts that kill the process group, and
the sweep that kills whatever a call left behind."""

import asyncio
import os
import signal
import time
from dataclasses import dataclass

from users import filesystem_executor

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


class _ExitProtocol(asyncio.SubprocessProtocol):
    """Says when the process itself has exited. (asyncio's Process.wait() also waits for the pipes
    to close, so a background child holding stdout would hold the call.)"""

    def __init__(self, loop):
        self.exited = loop.create_future()

    def process_exited(self):
        if not self.exited.done():
            self.exited.set_result(None)


def _pipes():
    # Runs on a thread whose filesystem uid is the command's user: a pipe's inode belongs to the
    # fsuid that made it, so the command may reopen its own stdout as /dev/stdout or /dev/fd/1
    # (root-owned pipes, mode 0600, would refuse it).
    return os.pipe(), os.pipe(), os.pipe()


async def _reader(loop, fd, buffer):
    stream = asyncio.StreamReader(limit=READ_CHUNK_BYTES)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(fd, "rb", 0))
    try:
        await drain(stream, buffer)
    finally:
        transport.close()


async def _feed(loop, pipe, data):
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        writer.write(data)
        await writer.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # a handler that does not read its stdin is allowed
    finally:
        transport.close()


def _close(*fds):
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


async def run(argv, *, user, cwd, env, stdin_data, timeout_ms, output_cap_bytes, sweep_user_after):
    """Runs argv as `user`. With `sweep_user_after`, every process of the user still alive when the
    command ends (or times out) is killed; otherwise only the command's own process group is."""
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    (in_read, in_write), (out_read, out_write), (err_read, err_write) = await loop.run_in_executor(filesystem_executor(user), _pipes)

    def spawn():
        return loop.subprocess_exec(
            lambda: _ExitProtocol(loop),
            *argv,
            stdin=in_read if stdin_data is not None else asyncio.subprocess.DEVNULL,
            stdout=out_write,
            stderr=err_write,
            cwd=cwd,
            env=env,
            user=user.uid,
            group=user.gid,
            extra_groups=[],
            # Its own session and process group, so a timeout can kill the whole tree at once.
            start_new_session=True,
            umask=0o022,
        )

    try:
        try:
            transport, protocol = await spawn()
        except BlockingIOError:
            # The pid limit is exhausted (a fork bomb left behind): clear the user's processes, retry once.
            await kill_user_processes(user)
            transport, protocol = await spawn()
    except BaseException:
        _close(in_read, in_write, out_read, out_write, err_read, err_write)
        raise
    # The child has its ends; ours are the others.
    _close(in_read, out_write, err_write)
    pid = transport.get_pid()
    stdout = CappedBuffer(output_cap_bytes)
    stderr = CappedBuffer(output_cap_bytes)
    readers = asyncio.gather(_reader(loop, out_read, stdout), _reader(loop, err_read, stderr))
    if stdin_data is not None:
        # A file object now, so the descriptor is closed even if the feeder never gets to run.
        feeder = asyncio.ensure_future(_feed(loop, os.fdopen(in_write, "wb", 0), stdin_data))
    else:
        _close(in_write)
        feeder = None

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
    if feeder is not None:
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
