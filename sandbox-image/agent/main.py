"""The hookbox sandbox agent: the resident process inside every sandbox container.

The controller talks to it over the container's attached stdio, one JSON object per line in each
direction. Requests carry an `id`; answers echo it, so many requests can be in flight at once.
It runs tool code and file tools as the tool user and hook handlers as the hook user, with output
caps, timeouts that kill the whole process group, and clean-up of processes tool code left behind.

Only the standard library: the image holds python3 and nothing else of Python's.
"""

import asyncio
import base64
import contextlib
import json
import os
import re
import secrets
import sys
import time

# -I (isolated mode) leaves the script's own folder off sys.path; the agent's modules live there.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import channel  # noqa: E402
import code_prestart  # noqa: E402
import files  # noqa: E402
import files_2026_09  # noqa: E402
import hook_processes  # noqa: E402
import http_hooks  # noqa: E402
import live_output  # noqa: E402
import plain_allow  # noqa: E402
import processes  # noqa: E402
import protocol  # noqa: E402
import sources  # noqa: E402
import sweep  # noqa: E402
import workspace_files  # noqa: E402
from hook_command import hook_argv  # noqa: E402
from launch import code_command, hook_environment, hook_environment_as_tool, tool_environment  # noqa: E402
from users import HOOK, TOOL, drop_supplementary_groups  # noqa: E402

# The version and the paths come from protocol.schema.json, generated from the controller's zod
# schemas (src/sandbox/protocol/, docs/agent-protocol.md): written down once.
PROTOCOL_VERSION = protocol.VERSION
# The longest request line; the controller refuses to send a longer one (src/sandbox/
# agent-connection.ts, AGENT_MAX_LINE_BYTES), and a longer one that arrives anyway is answered with
# an error and skipped: the agent never dies of its input.
MAX_REQUEST_BYTES = 64 * 1024 * 1024

# Where the controller injects /.agents (a writable mount of the same volume that is read-only at
# /.agents and /workspace/.agents); only root can reach it, because /opt/hookbox is 0700.
AGENTS_WRITABLE_DIR = protocol.PATHS["agentsWritable"]
WORKSPACE = protocol.PATHS["workspace"]
CHANNEL_DIR = protocol.PATHS["agentChannel"]
# Random per start: the controller checks that the agent on the channel socket is the one on this
# container's stdio (docs/agent-protocol.md, "The stream").
INSTANCE = secrets.token_hex(16)


def log(message):
    sys.stderr.write(f"[agent] {message}\n")
    sys.stderr.flush()


def _encode(message):
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def _write_stdout(data):
    view = memoryview(data)
    while view:
        written = os.write(1, view)
        view = view[written:]


def send(message):
    """Sends to where the request being served came from: the channel connection, or stdout."""
    channel.WRITER.get(_write_stdout)(_encode(message))


def bound_send():
    """`send` for the request being served, for callbacks that run outside it (live output)."""
    write = channel.WRITER.get(_write_stdout)
    return lambda message: write(_encode(message))


CODE_INTERPRETERS = code_prestart.CodeInterpreters()


async def run_code(request):
    await files.ensure_tool_tmpdir()
    result = None
    # The interpreter started ahead has the sandbox's own environment and no live output: a call
    # with `environment.env` or streamed output is spawned (docs/gates.md, "Prestart and workers").
    if not request.get("background_processes", False) and not request.get("env") and not request.get("stream_output"):
        code_bytes = os.fsencode(request["code"])
        waiting = await CODE_INTERPRETERS.take(request["language"], code_bytes, tool_environment())
        if waiting is not None:
            result = await CODE_INTERPRETERS.run(waiting, code_bytes, request["timeout_ms"], request["output_cap_bytes"])
    if result is None:
        result = await spawn_code(request)
    return {
        "exit_code": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "timed_out": result.timed_out,
        "truncated": result.truncated,
        "duration_ms": result.duration_ms,
    }


async def spawn_code(request):
    argv, script = code_command(request["language"], request["code"])
    return await processes.run(
        argv,
        script=script,
        user=TOOL,
        cwd=WORKSPACE,
        # environment.env (docs/environments.md): the controller checked the names; the sandbox's own win.
        env={**{str(k): str(v) for k, v in (request.get("env") or {}).items()}, **tool_environment()},
        stdin_data=None,
        timeout_ms=request["timeout_ms"],
        output_cap_bytes=request["output_cap_bytes"],
        sweep_user_after=not request.get("background_processes", False),
        on_output=live_output.sender(request.get("id"), bound_send()) if request.get("stream_output") else None,
    )


@contextlib.asynccontextmanager
async def tool_code_paused():
    """Tool processes still alive while a hook runs are background processes the environment
    allows. They are stopped for the hook's run, so they can neither starve it (or the agent) of CPU
    until it times out, nor use up the pids it needs (a failed gate allows), nor change files under
    it; then they go on."""
    # The interpreter waiting for the next call's code is not tool code yet: nothing to stop. After
    # a sweep that left no tool process, none can have started since: nothing to look for.
    if not sweep.tool_code_may_run():
        yield ()
        return
    paused = await sweep.pause_user_processes(TOOL, spare_sessions=CODE_INTERPRETERS.spared_sessions())
    try:
        yield paused
    finally:
        sweep.resume_processes(paused)


def _payload(request, name):
    """A text field the controller sends base64-encoded (`NAME_b64`): JSON inside a JSON string
    would double its escaping on the stream, base64 grows it by a third whatever it holds."""
    if f"{name}_b64" in request:
        return base64.b64decode(request[f"{name}_b64"], validate=True)
    return request.get(name, "").encode()


HOOK_PROCESSES = hook_processes.HookProcesses()


def _hook_answer(result, runner, note=None):
    answer = {
        "exit_code": result.exit_code,
        "signal": result.signal,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "timed_out": result.timed_out,
        "truncated": result.truncated,
        "duration_ms": result.duration_ms,
        "runner": runner,
    }
    if note is not None:
        answer["runner_note"] = note
    return answer


async def spawn_hook(request):
    return await processes.run(
        hook_argv(request["command"]),
        user=HOOK,
        cwd=WORKSPACE,
        env=hook_environment(request.get("env")),
        stdin_data=request.get("stdin", "").encode(),
        timeout_ms=request["timeout_ms"],
        output_cap_bytes=request["output_cap_bytes"],
        # Hooks run one at a time: nothing a hook leaves behind outlives it (but the processes
        # waiting for later events: docs/gates.md, "Prestart and workers").
        sweep_user_after=True,
        spare_sessions=HOOK_PROCESSES.spared_sessions,
    )


async def spawn_hook_as_tool(request, paused):
    """A `"run_as": "tool"` handler (docs/gates.md, "Running workspace code from a hook"): spawned as
    the tool user, confined as tool code is. Afterwards every tool process it left is killed, but the
    paused background processes and the interpreter waiting for the next call's code."""
    await files.ensure_tool_tmpdir()
    kept = set(CODE_INTERPRETERS.spared_sessions())
    for pid in paused:
        with contextlib.suppress(OSError):
            kept.add(os.getsid(pid))
    return await processes.run(
        hook_argv(request["command"]),
        user=TOOL,
        cwd=WORKSPACE,
        env=hook_environment_as_tool(request.get("env")),
        stdin_data=request.get("stdin", "").encode(),
        timeout_ms=request["timeout_ms"],
        output_cap_bytes=request["output_cap_bytes"],
        sweep_user_after=True,
        spare_sessions=lambda: frozenset(kept),
    )


async def run_hook(request):
    """One command handler, and then the call's code when the controller sent it along and the
    hook's answer plainly allows (docs/gates.md, "One request per gated call")."""
    answer = await _run_one_hook(request)
    follow = request.get("then_run_code")
    if follow is not None and plain_allow.plainly_allows(answer):
        try:
            answer["then"] = await run_code({**follow, "stream_output": False})
        except Exception as error:  # as a failed run_code request would be answered
            log(f"code run after its hook failed: {error!r}")
            answer["then_error"] = f"{type(error).__name__}: {error}"
    return answer


async def _run_one_hook(request):
    """By the handler's worker (`"worker": true`), by the process prestarted for it, or spawned. A
    worker's failure falls back to a spawn, so the event is still answered."""
    if "stdin_b64" in request:
        request = {**request, "stdin": _payload(request, "stdin").decode("utf-8", errors="replace")}
    async with tool_code_paused() as paused:
        # A prestarted gate or a worker may fork too: the same room as for a spawn.
        await sweep.make_room_for_hook()
        if request.get("run_as") == "tool":
            return _hook_answer(await spawn_hook_as_tool(request, paused), "spawned")
        if request.get("worker") and request.get("key") is not None:
            started = time.monotonic()
            (answer, stderr), failure = await HOOK_PROCESSES.ask_worker(request, hook_environment)
            if failure is None:
                duration_ms = round((time.monotonic() - started) * 1000, 3)
                return _hook_answer(
                    processes.RunResult(0, None, answer + "\n", stderr, False, False, duration_ms), "worker"
                )
            return _hook_answer(await spawn_hook(request), "worker_fallback", failure)
        note = None
        if request.get("prestart") and request.get("key") is not None and hook_processes.wants_prestart(request["prestart"], request["command"]):
            waiting, note = await HOOK_PROCESSES.take_waiting(request, hook_environment(request.get("env")))
            if waiting is not None:
                return _hook_answer(await HOOK_PROCESSES.run_prestarted(waiting, request), "prestarted")
        return _hook_answer(await spawn_hook(request), "spawned", note)


async def prestart_hooks(request):
    """Starts the next call's processes: its hooks' and, when the controller asks (no background
    processes), the interpreter of `code_language` (docs/gates.md, "Prestart and workers")."""
    answer = await HOOK_PROCESSES.prestart(request, hook_environment)
    if request.get("code_language"):
        await files.ensure_tool_tmpdir()
        answer["code"] = await CODE_INTERPRETERS.prestart(request["code_language"], tool_environment())
    else:
        CODE_INTERPRETERS.discard()
    return answer


async def run_http_hook(request):
    if "body_b64" in request:
        request = {**request, "body": _payload(request, "body").decode("utf-8", errors="replace")}
    async with tool_code_paused():
        return await http_hooks.run(request)


async def handle(request):
    op = request.get("op")
    if op == "ping":
        return {"protocol": PROTOCOL_VERSION, "pid": os.getpid(), "time": time.time(), "instance": INSTANCE}
    if op == "run_code":
        return await run_code(request)
    if op == "run_hook":
        return await run_hook(request)
    if op == "prestart_hooks":
        return await prestart_hooks(request)
    if op == "http_hook":
        return await run_http_hook(request)
    if op == "file":
        return await files.run(request)
    if op == "file_2026_09":
        return await files_2026_09.run(request)
    if op == "workspace_files":
        return await workspace_files.run(request)
    if op == "write_sources":
        # New workspace files: an interpreter started before them would not start as a spawn would.
        CODE_INTERPRETERS.discard()
        return await sources.write_sources(request)
    if op == "replace_agents":
        # Nothing prestarted for the old gates may answer for the new ones (docs/gates.md).
        HOOK_PROCESSES.discard_all()
        CODE_INTERPRETERS.discard()
        return await sources.replace_agents(request)
    if op == "reset_agents":
        # Nothing prestarted for the old gates may answer for the new ones.
        HOOK_PROCESSES.discard_all()
        CODE_INTERPRETERS.discard()
        await asyncio.get_running_loop().run_in_executor(None, files.empty_directory, AGENTS_WRITABLE_DIR)
        return {"ok": True}
    if op == "kill_tool_processes":
        CODE_INTERPRETERS.discard()
        return {"killed": await sweep.kill_user_processes(TOOL)}
    raise ValueError(f"unknown op {op!r}")


async def serve_one(line):
    request_id = None
    try:
        request = json.loads(line)
        request_id = request.get("id")
        result = await handle(request)
        send({"id": request_id, "ok": True, "result": result})
    except Exception as error:  # an agent that dies on one bad request would take the environment down
        log(f"request {request_id} failed: {error!r}")
        send({"id": request_id, "ok": False, "error": f"{type(error).__name__}: {error}"})


_REQUEST_ID = re.compile(rb'^\s*\{"id":(\d+)[,}]')


async def _skip_long_line(reader, error):
    """Reads past a line longer than MAX_REQUEST_BYTES and answers it with an error, when its id
    can be read from its start (the controller writes the id first)."""
    head = b""
    while True:
        chunk = await reader.readexactly(error.consumed) if error.consumed else b""
        head = head or chunk[:64]
        try:
            await reader.readuntil(b"\n")
            break
        except asyncio.LimitOverrunError as again:
            error = again
        except asyncio.IncompleteReadError:
            break
    match = _REQUEST_ID.match(head)
    message = f"request line longer than {MAX_REQUEST_BYTES} bytes; refused"
    log(message)
    if match:
        send({"id": int(match.group(1)), "ok": False, "error": f"RequestTooLarge: {message}"})


async def read_lines(reader):
    """Request lines until stdin closes; over-long lines are answered and skipped."""
    while True:
        try:
            yield await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as error:
            if error.partial:
                yield error.partial
            return
        except asyncio.LimitOverrunError as error:
            await _skip_long_line(reader, error)


async def serve_lines(reader):
    """Serves the requests of one stream (stdin, or a channel connection) until it closes."""
    pending = set()
    async for line in read_lines(reader):
        # A controller that died mid-write leaves half a line; the next controller starts with "\n".
        if not line.strip():
            continue
        task = asyncio.ensure_future(serve_one(line))
        pending.add(task)
        task.add_done_callback(pending.discard)


async def main():
    drop_supplementary_groups()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_REQUEST_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        server = await channel.listen(CHANNEL_DIR, serve_lines, MAX_REQUEST_BYTES)
    except OSError as error:  # the stdio still serves
        log(f"no channel socket: {error!r}")
        server = None
    log(f"ready (pid {os.getpid()}, protocol {PROTOCOL_VERSION}, channel {'on' if server else 'off'})")
    await serve_lines(reader)
    log("stdin closed; exiting")


if __name__ == "__main__":
    asyncio.run(main())
