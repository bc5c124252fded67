"""A hook worker (`"worker": true`, docs/gates.md "Prestart and workers"): one long-lived process
per handler that reads one JSON line per event and answers one JSON line. HookProcesses starts
them and falls back to a spawn when one fails."""

import asyncio
import collections
import json
import os

import processes

# An answer line longer than this is garbage: the worker is restarted.
WORKER_LINE_CAP_BYTES = 1024 * 1024


class Worker:
    """A long-lived handler process: one JSON line in, one JSON line out, per event."""

    def __init__(self, pid, child, in_write, out_read, err_read, generation):
        self.pid = pid
        self.child = child
        self.in_write = in_write
        self.generation = generation
        self._loop = asyncio.get_running_loop()
        self._out_fd = out_read
        self._err_fd = err_read
        self._pending = b""
        self._lines = collections.deque()
        # Set when a line arrives: the asking coroutine waits on it, no task in between.
        self._arrived = None
        self.stderr = processes.CappedBuffer(64 * 1024)
        os.set_blocking(out_read, False)
        os.set_blocking(err_read, False)
        os.set_blocking(in_write, False)
        self._loop.add_reader(out_read, self._on_stdout)
        self._loop.add_reader(err_read, self._on_stderr)

    def _on_stdout(self):
        chunk = processes.read_ready(self._out_fd)
        if chunk is None:
            return
        if not chunk:
            self._loop.remove_reader(self._out_fd)
            self._line(None)
            return
        self._pending += chunk
        while b"\n" in self._pending:
            line, self._pending = self._pending.split(b"\n", 1)
            self._line(line)
        if len(self._pending) > WORKER_LINE_CAP_BYTES:
            self._pending = b""
            self._line(b"\x00line too long")

    def _line(self, line):
        self._lines.append(line)
        if self._arrived is not None and not self._arrived.done():
            self._arrived.set_result(None)

    def _on_stderr(self):
        chunk = processes.read_ready(self._err_fd)
        if chunk is None:
            return
        if not chunk:
            self._loop.remove_reader(self._err_fd)
            return
        self.stderr.add(chunk)

    async def _write(self, data):
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.in_write, view) :]
            except BlockingIOError:
                ready = self._loop.create_future()
                self._loop.add_writer(self.in_write, lambda: ready.done() or ready.set_result(None))
                try:
                    await ready
                finally:
                    self._loop.remove_writer(self.in_write)

    async def ask(self, line, timeout_ms):
        """Sends one event line; returns (answer text, None) or (None, why the worker failed)."""
        if self.child.exited.done():
            return None, "the worker had exited"
        self.stderr = processes.CappedBuffer(64 * 1024)
        self._lines.clear()  # lines nobody asked for are not an answer to this event
        try:
            # A line that fits the pipe is written at once, without a task to time it (an event
            # costs a fraction of a millisecond: docs/gates.md, "Costs and bounds").
            rest = memoryview(line)[os.write(self.in_write, line) :]
            if rest:
                await asyncio.wait_for(self._write(rest), timeout_ms / 1000)
            if not self._lines:
                self._arrived = self._loop.create_future()
                if not await processes._wait(self._arrived, timeout_ms / 1000):
                    raise asyncio.TimeoutError
            answer = self._lines.popleft()
        except BlockingIOError:
            return None, "the worker does not read its stdin"
        except asyncio.TimeoutError:
            return None, f"the worker did not answer within {timeout_ms // 1000} s"
        except OSError as error:
            return None, f"the worker's stdin failed ({error.strerror})"
        if answer is None:
            return None, "the worker exited"
        try:
            parsed = json.loads(answer)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            return None, "the worker answered something other than one JSON object on a line"
        return answer.decode("utf-8", errors="replace"), None

    def discard(self):
        processes.kill_group(self.pid)
        for fd in (self._out_fd, self._err_fd):
            try:
                self._loop.remove_reader(fd)
            except (ValueError, OSError):
                pass
        processes._close(self.in_write, self._out_fd, self._err_fd)
