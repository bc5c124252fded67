"""Running commands as an unprivileged user: output caps, timeouts that kill the process group, and
the sweep that kills whatever a call left behind."""

import asyncio
import errno
import os
import signal
import threading
import time
from dataclasses import dataclass

from protocol import PATHS
from sweep import kill_user_processes, note_tool_code_runs
from users import HOOK, TOOL, filesystem_executor

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
    def __init__(self, cap_bytes, on_add=None):
        self.cap_bytes = cap_bytes
        # Live output (live_output.py): told each chunk kept, as it comes.
        self.on_add = on_add
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
            if self.on_add is not None:
                self.on_add(chunk)

    def text(self):
        return b"".join(self.parts).decode("utf-8", errors="replace")


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# Every command starts through this static helper, which drops root and execs the command (see
# sandbox-image/spawn-as/spawn-as.c): posix_spawn never copies the agent's memory, where CPython's
# own user switch has to fork() it.
SPAWN_AS = PATHS["spawnAs"]
_UMASK = "022"
_dev_null_fd = None


def _dev_null():
    global _dev_null_fd
    if _dev_null_fd is None:
        _dev_null_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    return _dev_null_fd


# When the container runs out of memory, the kernel kills the process with the highest score:
# tool code first, then hooks (a hook that blows up fails as a hook), the agent last.
_OOM_SCORE_ADJ = {TOOL.uid: "1000", HOOK.uid: "500"}
# Tool code may open files for writing only beneath /workspace, /dev and /tmp, so it cannot lower its
# own oom_score_adj (see sandbox-image/spawn-as/spawn-as.c, CONFINE).
_CONFINE = {TOOL.uid: "write-only-below"}


def _spawn(argv, user, cwd, env, stdio_fds, script_fd, waiting=False):
    """Starts argv (argv[0] an absolute path) as `user` in its own session; returns its pid.
    `waiting`: a tool interpreter that blocks until it is handed code (code_prestart.py)."""
    if user.uid == TOOL.uid and not waiting:
        note_tool_code_runs()
    given = [*stdio_fds] if script_fd is None else [*stdio_fds, script_fd]
    oom_score_adj = _OOM_SCORE_ADJ.get(user.uid, "-")
    confine = _CONFINE.get(user.uid, "-")
    return os.posix_spawn(
        SPAWN_AS,
        [SPAWN_AS, str(user.uid), str(user.gid), cwd, _UMASK, str(len(given)), oom_score_adj, confine, *argv],
        env,
        file_actions=[(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(given)],
        # Its own session and process group, so a timeout can kill the whole tree at once.
        # (spawn-as resets every signal to its default and unblocks them all.)
        setsid=True,
    )


class _Child:
    """Says when the process itself has exited, through a pidfd on the event loop. (Waiting for the
    pipes to close instead would let a background child holding stdout hold the call.)"""

    def __init__(self, loop, pid):
        self.pid = pid
        self.returncode = None
        self.exited = loop.create_future()
        self._loop = loop
        try:
            self._pidfd = os.pidfd_open(pid)
        except OSError as error:
            # gVisor (runsc) has no pidfd_open: a thread waits for this one pid instead.
            # docs/gvisor.md, Differences.
            if error.errno != errno.ENOSYS:
                raise
            self._pidfd = None
            threading.Thread(target=self._wait_in_thread, daemon=True).start()
            return
        loop.add_reader(self._pidfd, self._reap)

    def _reap(self):
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        _, status = os.waitpid(self.pid, 0)
        self._exited(status)

    def _wait_in_thread(self):
        _, status = os.waitpid(self.pid, 0)
        self._loop.call_soon_threadsafe(self._exited, status)

    def _exited(self, status):
        self.returncode = os.waitstatus_to_exitcode(status)
        if not self.exited.done():
            self.exited.set_result(None)


def read_ready(fd):
    """One read of a non-blocking pipe the loop said is readable: the bytes, b"" at its end (or when
    it failed: nothing more will come), None when there was nothing after all."""
    try:
        return os.read(fd, READ_CHUNK_BYTES)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class _PipeReader:
    """Reads a pipe into a CappedBuffer until end of file or close()."""

    def __init__(self, loop, fd, buffer):
        self.done = loop.create_future()
        self._loop = loop
        self._fd = fd
        self._buffer = buffer
        os.set_blocking(fd, False)
        loop.add_reader(fd, self._on_readable)

    def _on_readable(self):
        chunk = read_ready(self._fd)
        if chunk is None:
            return
        if chunk:
            # Past the cap the buffer drops what it gets, but the pipe is still drained, so the
            # command never blocks on a full pipe.
            self._buffer.add(chunk)
        else:
            self.close()

    def close(self):
        if self._fd is None:
            return
        self._loop.remove_reader(self._fd)
        _close(self._fd)
        self._fd = None
        if not self.done.done():
            self.done.set_result(None)


class _PipeWriter:
    """Writes `data` into a pipe without blocking the loop, then closes it (the command's EOF)."""

    def __init__(self, loop, fd, data):
        self._loop = loop
        self._fd = fd
        self._pending = memoryview(data)
        self._waiting = False
        os.set_blocking(fd, False)
        self._on_writable()
        if self._fd is not None:
            self._waiting = True
            loop.add_writer(fd, self._on_writable)

    def _on_writable(self):
        try:
            written = os.write(self._fd, self._pending) if self._pending else 0
        except BlockingIOError:
            return
        except OSError:
            # A handler that does not read its stdin is allowed (BrokenPipeError).
            self.close()
            return
        self._pending = self._pending[written:]
        if not self._pending:
            self.close()

    def close(self):
        if self._fd is None:
            return
        if self._waiting:
            self._loop.remove_writer(self._fd)
        _close(self._fd)
        self._fd = None


def _pipes():
    # Runs on a thread whose filesystem uid is the command's user: a pipe's inode belongs to the
    # fsuid that made it, so the command may reopen its own stdout as /dev/stdout or /dev/fd/1
    # (root-owned pipes, mode 0600, would refuse it).
    return os.pipe(), os.pipe(), os.pipe()


def _close(*fds):
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


async def _wait(future, timeout_seconds):
    """True if `future` finished within the timeout (it is never cancelled). One waiter released by
    either the future or a timer: `wait_for(shield(...))` took one more turn of the event loop to
    wake the caller, another syscall on the call's path (docs/gates.md, "Costs and bounds")."""
    if future.done():
        return True
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()

    def release(_=None):
        if not waiter.done():
            waiter.set_result(None)

    future.add_done_callback(release)
    timer = loop.call_later(timeout_seconds, release)
    try:
        await waiter
    finally:
        timer.cancel()
        future.remove_done_callback(release)
    return future.done()


def _script_file(script):
    """A memory file holding `script`, to be the command's descriptor 3."""
    fd = os.memfd_create("hookbox-script", os.MFD_CLOEXEC)
    view = memoryview(script)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


async def run(argv, *, user, cwd, env, stdin_data, timeout_ms, output_cap_bytes, sweep_user_after, script=None, spare_sessions=frozenset, on_output=None):
    """Runs argv as `user`. With `sweep_user_after`, every process of the user still alive when the
    command ends (or times out) is killed, except the sessions `spare_sessions()` names (hook
    processes waiting for later events, docs/gates.md "Prestart and workers"); otherwise only the
    command's own process group is. `script` (bytes), when given, is readable by the command on
    descriptor 3 (/dev/fd/3)."""
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    (in_read, in_write), (out_read, out_write), (err_read, err_write) = await loop.run_in_executor(filesystem_executor(user), _pipes)
    stdio_fds = (in_read if stdin_data is not None else _dev_null(), out_write, err_write)
    script_fd = None
    try:
        if script is not None:
            script_fd = _script_file(script)
        try:
            pid = _spawn(argv, user, cwd, env, stdio_fds, script_fd)
        except BlockingIOError:
            # The pid limit is used up (a fork bomb left behind): clear the user's processes, retry
            # once. (Before a hook, make_room_for_hook has already cleared tool code's.)
            await kill_user_processes(user)
            pid = _spawn(argv, user, cwd, env, stdio_fds, script_fd)
    except BaseException:
        _close(in_read, in_write, out_read, out_write, err_read, err_write)
        raise
    finally:
        if script_fd is not None:
            _close(script_fd)
    # The child has its ends; ours are the others.
    _close(in_read, out_write, err_write)
    try:
        child = _Child(loop, pid)
    except BaseException:
        kill_group(pid)
        os.waitpid(pid, 0)
        _close(in_write, out_read, err_read)
        raise
    stdout = CappedBuffer(output_cap_bytes, on_output and (lambda chunk: on_output("stdout", chunk)))
    stderr = CappedBuffer(output_cap_bytes, on_output and (lambda chunk: on_output("stderr", chunk)))
    pipe_readers = (_PipeReader(loop, out_read, stdout), _PipeReader(loop, err_read, stderr))
    readers = asyncio.gather(*(reader.done for reader in pipe_readers))
    if stdin_data is not None:
        feeder = _PipeWriter(loop, in_write, stdin_data)
    else:
        _close(in_write)
        feeder = None

    timed_out = False
    try:
        if not await _wait(child.exited, timeout_ms / 1000):
            timed_out = True
            kill_group(pid)
            if sweep_user_after:
                await kill_user_processes(user, spare_sessions=spare_sessions())
            await child.exited
        if not await _wait(readers, PIPE_GRACE_SECONDS):
            # Children still hold the pipes. Under the sweep they die with every process of the user;
            # background processes that are allowed to live keep running, and we stop reading them.
            if sweep_user_after:
                kill_group(pid)
                await kill_user_processes(user, spare_sessions=spare_sessions())
                await _wait(readers, 1)
        elif sweep_user_after:
            await kill_user_processes(user, spare_sessions=spare_sessions())
    finally:
        for reader in pipe_readers:
            reader.close()
        if feeder is not None:
            feeder.close()
    code = child.returncode
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
