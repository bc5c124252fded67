"""Hook processes started ahead of their event (docs/gates.md, "Prestart and workers").

Two ways to take the interpreter start out of a gated call, both keyed by the controller's name for
one handler of the gates in force (its `key`) and the gates' `generation`:

- Prestarted processes: the exact process a spawn would start (`/bin/sh -c COMMAND` as the hook
  user, cwd /workspace, the hook environment with the per-call values the controller expects next),
  stdin a pipe nothing has been written to yet. It runs its imports and blocks on stdin. A call whose
  handler, generation and environment match takes it (a hit): the payload is written, stdin closed,
  and from then on it is supervised exactly like a spawned hook. Anything else is a miss: the waiting
  process is killed and the hook is spawned as before. Each process serves one event, then is gone.
- Workers (`"worker": true`): one long-lived process per handler, reading one JSON line per event
  and answering one JSON line. A worker that dies, hangs past the timeout or answers garbage is
  killed; the event is then answered by a one-shot spawn, never by a silent allow.

The controller asks for the next processes (op `prestart_hooks`) after a call has finished, so their
start-up is off every call's critical path. Replacing the gates (op `reset_agents`) kills them all.
"""

import asyncio
import json
import os
import re
import shlex
import time

import processes
import sweep
from hook_command import hook_argv
from hook_worker import Worker
from protocol import PATHS
from users import HOOK, filesystem_executor

# How many processes (waiting and workers) one environment keeps at most; handlers past it spawn.
# docs/gates.md, "Costs": a waiting python gate holds ~9-25 MB, so this bounds the extra memory.
MAX_PROCESSES = 8
# A prestarted process that exits on its own before its event (a command that never reads stdin,
# such as `echo '{"decision":"allow"}'`) is never any use: after this many in a row its handler is
# spawned as before, until the gates change.
EARLY_EXITS_BEFORE_GIVING_UP = 2


_PYTHON_PROGRAM = re.compile(r"(^|/)python3?(\.\d+)?$")
# Characters with which /bin/sh itself would act before the handler reads its stdin (a redirection
# truncates a file at once) or run more than one program.
_SHELL_ACTION = re.compile(r"[<>|;&$`(){}\n]")


def worth_prestarting(command):
    """The default (`prestart` not given in hooks.json): only a python program run without shell
    redirections or pipelines. Its start (interpreter, imports) is the cost worth hiding, and a
    python gate reads its stdin before it acts; a shell's start is ~1 ms and a shell script acts at
    once (`cat > file` truncates the file when it starts). docs/gates.md, "Prestart and workers"."""
    if _SHELL_ACTION.search(command):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    words = [word for word in words if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word)]
    if not words:
        return False
    program = words[0]
    if _PYTHON_PROGRAM.search(program):
        return True
    if program.startswith("/"):
        try:
            with open(program, "rb") as script:
                first_line = script.readline(256)
        except OSError:
            return False
        return first_line.startswith(b"#!") and b"python" in first_line
    return False


def wants_prestart(setting, command):
    """`prestart` as the controller sends it: true, false, or "auto" (hooks.json left it out)."""
    return setting is True or (setting == "auto" and worth_prestarting(command))


class _Waiting:
    """One prestarted process blocked on its stdin."""

    def __init__(self, pid, child, in_write, out_read, err_read, env, generation):
        self.pid = pid
        self.child = child
        self.in_write = in_write
        self.out_read = out_read
        self.err_read = err_read
        self.env = env
        self.generation = generation

    def discard(self):
        processes.kill_group(self.pid)
        processes._close(self.in_write, self.out_read, self.err_read)


async def _start(command, env, extra_fds=()):
    """Starts `/bin/sh -c command` as the hook user with three fresh pipes; returns
    (pid, child, in_write, out_read, err_read)."""
    loop = asyncio.get_running_loop()
    (in_read, in_write), (out_read, out_write), (err_read, err_write) = await loop.run_in_executor(
        filesystem_executor(HOOK), processes._pipes
    )
    try:
        pid = processes._spawn(hook_argv(command), HOOK, PATHS["workspace"], env, (in_read, out_write, err_write), None)
    except BaseException:
        processes._close(in_read, in_write, out_read, out_write, err_read, err_write)
        raise
    processes._close(in_read, out_write, err_write)
    try:
        child = processes._Child(loop, pid)
    except BaseException:
        processes.kill_group(pid)
        os.waitpid(pid, 0)
        processes._close(in_write, out_read, err_read)
        raise
    return pid, child, in_write, out_read, err_read


async def _supervise(waiting, stdin_data, timeout_ms, output_cap_bytes, spare, user=HOOK):
    """Hands a prestarted process its payload and supervises it as processes.run does a spawned one
    with the sweep of `user` (the timeout counts from the payload write). Returns a RunResult."""
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    stdout = processes.CappedBuffer(output_cap_bytes)
    stderr = processes.CappedBuffer(output_cap_bytes)
    pipe_readers = (
        processes._PipeReader(loop, waiting.out_read, stdout),
        processes._PipeReader(loop, waiting.err_read, stderr),
    )
    readers = asyncio.gather(*(reader.done for reader in pipe_readers))
    feeder = processes._PipeWriter(loop, waiting.in_write, stdin_data)
    pid, child = waiting.pid, waiting.child
    timed_out = False
    try:
        if not await processes._wait(child.exited, timeout_ms / 1000):
            timed_out = True
            processes.kill_group(pid)
            await sweep.kill_user_processes(user, spare_sessions=spare())
            await child.exited
        if not await processes._wait(readers, processes.PIPE_GRACE_SECONDS):
            processes.kill_group(pid)
            await sweep.kill_user_processes(user, spare_sessions=spare())
            await processes._wait(readers, 1)
        else:
            await sweep.kill_user_processes(user, spare_sessions=spare())
    finally:
        for reader in pipe_readers:
            reader.close()
        feeder.close()
    code = child.returncode
    signal_number = -code if code < 0 else None
    return processes.RunResult(
        exit_code=128 + signal_number if signal_number else code,
        signal=signal_number,
        stdout=stdout.text(),
        stderr=stderr.text(),
        timed_out=timed_out,
        truncated=stdout.truncated or stderr.truncated,
        duration_ms=round((time.monotonic() - started) * 1000, 3),
    )


class HookProcesses:
    """The environment's prestarted hook processes and workers."""

    def __init__(self):
        self.generation = None
        self.waiting = {}
        self.workers = {}
        self.early_exits = {}
        self._lock = asyncio.Lock()

    def spared_sessions(self):
        """Sessions the sweep after a hook must not kill: the ones waiting for later events."""
        return frozenset(w.pid for w in (*self.waiting.values(), *self.workers.values()))

    def discard_all(self):
        for entry in (*self.waiting.values(), *self.workers.values()):
            entry.discard()
        self.waiting.clear()
        self.workers.clear()
        self.early_exits.clear()

    def _forget_generation(self, generation):
        if generation != self.generation:
            self.discard_all()
            self.generation = generation

    async def prestart(self, request, hook_environment):
        """Starts what the controller expects the next call to need; kills what it no longer does."""
        async with self._lock:
            self._forget_generation(request["generation"])
            wanted = {handler["key"]: handler for handler in request["handlers"][:MAX_PROCESSES]}
            for table in (self.waiting, self.workers):
                for key in [key for key in table if key not in wanted]:
                    table.pop(key).discard()
            started = 0
            for key, handler in wanted.items():
                if handler.get("worker"):
                    worker = self.workers.get(key)
                    if worker is None or worker.child.exited.done():
                        if worker is not None:
                            worker.discard()
                        self.workers.pop(key, None)
                        try:
                            self.workers[key] = await self._start_worker(handler, hook_environment)
                        except OSError:  # no pid to spare now: the event starts one, or spawns
                            continue
                        started += 1
                    continue
                if self.early_exits.get(key, 0) >= EARLY_EXITS_BEFORE_GIVING_UP:
                    continue
                if not wants_prestart(handler.get("prestart", "auto"), handler["command"]):
                    continue
                env = hook_environment(handler["env"])
                current = self.waiting.get(key)
                if current is not None and current.env == env and not current.child.exited.done():
                    continue
                if current is not None:
                    current.discard()
                self.waiting.pop(key, None)
                try:
                    pid, child, in_write, out_read, err_read = await _start(handler["command"], env)
                except OSError:  # no pid to spare now: the event spawns as before
                    continue
                self.waiting[key] = _Waiting(pid, child, in_write, out_read, err_read, env, self.generation)
                started += 1
            return {"started": started, "waiting": len(self.waiting), "workers": len(self.workers)}

    async def _start_worker(self, handler, hook_environment):
        env = hook_environment({**handler["env"], "HOOKBOX_WORKER": "1"})
        for per_call in ("HOOKBOX_CALL_ID", "HOOKBOX_TOOL_NAME"):
            env.pop(per_call, None)  # they change with every event: they come on its line
        pid, child, in_write, out_read, err_read = await _start(handler["command"], env)
        return Worker(pid, child, in_write, out_read, err_read, self.generation)

    async def take_waiting(self, request, env):
        """The prestarted process for this run, or (None, why not). Whatever is not used is killed."""
        async with self._lock:
            key = request.get("key")
            waiting = self.waiting.pop(key, None) if key is not None else None
            if waiting is None:
                return None, "no prestarted process"
            if waiting.generation != request.get("generation"):
                waiting.discard()
                return None, "prestarted for other gates"
            if waiting.child.exited.done():
                waiting.discard()
                self.early_exits[key] = self.early_exits.get(key, 0) + 1
                return None, "the prestarted process had exited"
            self.early_exits.pop(key, None)
            if waiting.env != env:
                changed = sorted(name for name in set(env) | set(waiting.env) if env.get(name) != waiting.env.get(name))
                waiting.discard()
                return None, "prestarted with other values of " + ", ".join(changed)
            return waiting, None

    async def run_prestarted(self, waiting, request):
        return await _supervise(
            waiting,
            request.get("stdin", "").encode(),
            request["timeout_ms"],
            request["output_cap_bytes"],
            self.spared_sessions,
        )

    async def ask_worker(self, request, hook_environment):
        """Sends the event to the handler's worker (started here if there is none): (answer, None)
        or (None, why the worker failed); a failed worker is discarded, to be started afresh."""
        async with self._lock:
            self._forget_generation(request.get("generation"))
            key = request["key"]
            worker = self.workers.get(key)
            if worker is None or worker.child.exited.done():
                if worker is not None:
                    worker.discard()
                if len(self.workers) + len(self.waiting) >= MAX_PROCESSES and worker is None:
                    return (None, ""), "no room for another worker"
                worker = self.workers[key] = await self._start_worker(
                    {"command": request["command"], "env": request.get("env") or {}}, hook_environment
                )
        per_event = {name: str(value) for name, value in (request.get("env") or {}).items()}
        line = b'{"env":' + json.dumps(per_event).encode() + b',"event":' + (request.get("stdin") or "null").encode() + b"}\n"
        answer, failure = await worker.ask(line, request["timeout_ms"])
        if failure is not None:
            async with self._lock:
                if self.workers.get(key) is worker:
                    del self.workers[key]
            worker.discard()
        return (answer, worker.stderr.text()), failure

