"""code_execution interpreters started ahead of their call (docs/gates.md, "Prestart and workers").

The interpreter of the language most recently used is started as the tool user, with the tool
environment and cwd, and blocks reading its code from descriptor 3 (a pipe). The call writes the
code, closes the pipe, and supervises the process as processes.run does a spawned one.

Only where nothing can reach the waiting interpreter: the controller asks for one only when the
environment lets no tool process outlive its call, and it is started after the call's sweep, so no
tool process exists until the next call runs it. Anything that changes what the next call starts
from (new workspace sources) discards it.

What differs from `-c` (docs/gates.md lists it): shells run the code through `eval` (bash reports a
syntax error as `bash: eval: line N:` instead of `bash: -c: line N:`; dash prefixes its messages with
`eval: `), and `$BASH_EXECUTION_STRING` holds the wrapper below instead of the code.
"""

import asyncio
import time

import files
import hook_processes
import launch
import processes
import sweep
from users import TOOL, filesystem_executor

# The shells read their code byte by byte from a pipe (their `read` may not read past its
# delimiter): past this size a spawn is cheaper.
SHELL_CODE_CAP_BYTES = 2048
# Python code past what one argument holds goes to a spawn too (launch.code_command).
PYTHON_CODE_CAP_BYTES = launch.LONGEST_ARGUMENT_BYTES

_BASH = 'IFS= read -r -d "" -u 3 __hookbox_code; exec 3<&-; eval "unset __hookbox_code; $__hookbox_code"'
_SH = (
    '__hookbox_code=; while IFS= read -r __hookbox_line || [ -n "$__hookbox_line" ]; do '
    '__hookbox_code="$__hookbox_code$__hookbox_line\n"; done <&3; exec 3<&-; unset __hookbox_line; '
    'eval "unset __hookbox_code; $__hookbox_code"'
)
# Python reads its code as the long-code path of launch.code_command does: sys.path[0] stays the
# cwd, the file name "<string>".
ARGV = {
    "bash": [launch.INTERPRETERS["bash"], "-c", _BASH],
    "sh": [launch.INTERPRETERS["sh"], "-c", _SH],
    "python": [launch.INTERPRETERS["python"], "-c", launch.PYTHON_FROM_DESCRIPTOR_3],
}
CAPS = {"bash": SHELL_CODE_CAP_BYTES, "sh": SHELL_CODE_CAP_BYTES, "python": PYTHON_CODE_CAP_BYTES}


class CodeInterpreters:
    """At most one waiting interpreter per environment."""

    def __init__(self):
        self.waiting = None
        self.language = None
        self._lock = asyncio.Lock()

    def spared_sessions(self):
        return frozenset() if self.waiting is None else frozenset((self.waiting.pid,))

    def discard(self):
        if self.waiting is not None:
            self.waiting.discard()
        self.waiting = None
        self.language = None

    async def prestart(self, language, env):
        async with self._lock:
            if self.waiting is not None and self.language == language and not self.waiting.child.exited.done():
                return 0
            self.discard()
            if language not in ARGV:
                return 0
            loop = asyncio.get_running_loop()
            (code_read, code_write), (out_read, out_write), (err_read, err_write) = await loop.run_in_executor(
                filesystem_executor(TOOL), processes._pipes
            )
            try:
                pid = processes._spawn(
                    ARGV[language], TOOL, files.WORKSPACE, env, (processes._dev_null(), out_write, err_write), code_read,
                    waiting=True,
                )
            except BaseException:
                processes._close(code_read, code_write, out_read, out_write, err_read, err_write)
                raise
            processes._close(code_read, out_write, err_write)
            try:
                child = processes._Child(loop, pid)
            except BaseException:
                processes.kill_group(pid)
                processes._close(code_write, out_read, err_read)
                raise
            self.waiting = hook_processes._Waiting(pid, child, code_write, out_read, err_read, env, None)
            self.language = language
            return 1

    async def take(self, language, code_bytes, env):
        """The waiting interpreter for this code, or None (a miss: whatever waited is killed)."""
        async with self._lock:
            waiting, waiting_language = self.waiting, self.language
            self.waiting = None
            self.language = None
            if waiting is None:
                return None
            if (
                waiting_language != language
                or len(code_bytes) > CAPS[language]
                or waiting.env != env
                or waiting.child.exited.done()
            ):
                waiting.discard()
                return None
            return waiting

    async def run(self, waiting, code_bytes, timeout_ms, output_cap_bytes):
        sweep.note_tool_code_runs()  # from now on it is tool code
        started = time.monotonic()
        result = await hook_processes._supervise(
            waiting, code_bytes, timeout_ms, output_cap_bytes, frozenset, user=TOOL
        )
        result.duration_ms = round((time.monotonic() - started) * 1000, 3)
        return result
