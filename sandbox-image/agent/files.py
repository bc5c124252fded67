"""File tools, run as the tool user: the kernel checks every access, so docs/contract.md §2 holds by itself.

The work happens on threads whose filesystem uid/gid is the tool user's (setfsuid is per-thread),
which costs no process per call.
"""

import asyncio
import os
import shutil
import stat

from protocol import PATHS
from search import entry_type
from users import TOOL, filesystem_executor

WORKSPACE = PATHS["workspace"]
TOOL_TMPDIR = PATHS["toolTmp"]

_executor = filesystem_executor(TOOL)
TOOL_EXECUTOR = _executor


async def run_as_tool_user(work):
    """Runs `work()` on one of the threads whose filesystem uid/gid is the tool user's."""
    return await asyncio.get_running_loop().run_in_executor(_executor, work)


class FileToolError(Exception):
    """A failure the model should see as the tool's `{error}` result."""


# Tool code may write only beneath /workspace and /tmp (spawn-as confines it with Landlock:
# docs/security.md, "Tool code cannot lower its OOM score"). The file tools run in the agent, outside
# that confinement, so a file they open for writing must live on one of those filesystems: never
# /proc/PID/oom_score_adj of a background tool process, named directly or through a symlink.
WRITABLE_ROOTS = (WORKSPACE, "/tmp")


def check_writable(fd, full):
    """Closes `fd` and raises unless it is a file of /workspace or /tmp."""
    device = os.fstat(fd).st_dev
    for root in WRITABLE_ROOTS:
        try:
            if os.stat(root).st_dev == device:
                return
        except OSError:
            continue
    os.close(fd)
    raise FileToolError(f"{full}: Permission denied (the file tools write only beneath {WORKSPACE})")


def resolve(path):
    if not isinstance(path, str) or path == "":
        raise FileToolError("path must be a non-empty string")
    if "\0" in path:
        raise FileToolError("path must not contain NUL")
    return os.path.normpath(os.path.join(WORKSPACE, path))


def describe(error, path):
    reason = os.strerror(error.errno) if error.errno else str(error)
    return f"{path}: {reason}"


def read_file(path, max_bytes):
    full = resolve(path)
    try:
        # O_NONBLOCK: opening a FIFO that tool code made must not hang one of the file threads.
        with os.fdopen(os.open(full, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise FileToolError(f"{full}: is a directory, not a file")
            if not stat.S_ISREG(info.st_mode):
                raise FileToolError(f"{full}: not a regular file")
            data = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise FileToolError(f"{full}: is a directory, not a file")
    except OSError as error:
        raise FileToolError(describe(error, full))
    if len(data) > max_bytes:
        raise FileToolError(f"{full}: larger than the {max_bytes}-byte read limit")
    return {"content": data.decode("utf-8", errors="replace")}


def write_file(path, content):
    full = resolve(path)
    try:
        parent = os.path.dirname(full)
        os.makedirs(parent, exist_ok=True)
        if os.path.isdir(full):
            raise FileToolError(f"{full}: is a directory, not a file")
        # O_NONBLOCK: a FIFO with no reader fails at once (ENXIO) instead of hanging the thread.
        descriptor = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK, 0o644)
        check_writable(descriptor, full)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise FileToolError(f"{full}: not a regular file")
            handle.write(content)
    except FileToolError:
        raise
    except OSError as error:
        raise FileToolError(describe(error, error.filename or full))
    return {"ok": True}


def list_files(path):
    full = resolve(path)
    try:
        names = sorted(os.listdir(full))
    except NotADirectoryError:
        raise FileToolError(f"{full}: not a directory")
    except OSError as error:
        raise FileToolError(describe(error, full))
    entries = []
    for name in names:
        try:
            info = os.lstat(os.path.join(full, name))
        except OSError:
            continue
        entries.append({"name": name, "type": entry_type(info.st_mode), "size": info.st_size})
    return {"entries": entries}


def delete_file(path):
    full = resolve(path)
    try:
        info = os.lstat(full)
        if stat.S_ISDIR(info.st_mode):
            raise FileToolError(f"{full}: is a directory, not a file")
        os.unlink(full)
    except FileToolError:
        raise
    except OSError as error:
        raise FileToolError(describe(error, full))
    return {"ok": True}


def make_tool_tmpdir():
    # Tool code may delete its TMPDIR; make it again before each call.
    try:
        os.mkdir(TOOL_TMPDIR, 0o700)
    except FileExistsError:
        pass
    except OSError:
        pass  # a file squatting on the name only hurts tool code itself


def empty_directory(path):
    """Removes everything inside `path` (root's own injection directory), keeping `path` itself."""
    for name in os.listdir(path):
        target = os.path.join(path, name)
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target)
        else:
            os.unlink(target)


async def ensure_tool_tmpdir():
    # The common case (it exists) needs no hop to a tool-user thread: root may stat it.
    if os.path.isdir(TOOL_TMPDIR) and not os.path.islink(TOOL_TMPDIR):
        return
    await asyncio.get_running_loop().run_in_executor(_executor, make_tool_tmpdir)


async def run(request):
    tool = request["tool"]
    args = request["args"]
    loop = asyncio.get_running_loop()
    try:
        if tool == "read_file":
            work = lambda: read_file(args["path"], request.get("max_read_bytes", 10 * 1024 * 1024))  # noqa: E731
        elif tool == "write_file":
            work = lambda: write_file(args["path"], args["content"])  # noqa: E731
        elif tool == "list_files":
            work = lambda: list_files(args["path"])  # noqa: E731
        elif tool == "delete_file":
            work = lambda: delete_file(args["path"])  # noqa: E731
        else:
            raise ValueError(f"unknown file tool {tool!r}")
        return await loop.run_in_executor(_executor, work)
    except FileToolError as error:
        return {"error": str(error)}


