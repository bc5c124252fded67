"""Placing the sources a request sends: gates into /.agents (as root, through the only writable
mount of that volume, which tool code cannot reach), workspace files as the tool user (so the
kernel checks the writes, and tool code owns the files)."""

import asyncio
import base64
import os

from files import TOOL_EXECUTOR, WORKSPACE

AGENTS_WRITABLE_DIR = "/opt/hookbox/agents-rw"


def _safe_relative(path):
    # The controller validated every target; this is the agent's own line of defence.
    parts = path.split("/")
    if not path or path.startswith("/") or any(part in ("", ".", "..") for part in parts) or "\0" in path:
        raise ValueError(f"refusing source path {path!r}")
    return path


def _write(root, path, content, executable, encoding=None):
    full = os.path.join(root, _safe_relative(path))
    # Binary sources come as base64 and are written byte for byte; text is written as UTF-8.
    data = base64.b64decode(content, validate=True) if encoding == "base64" else content.encode("utf-8")
    os.makedirs(os.path.dirname(full), mode=0o755, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK
    descriptor = os.open(full, flags, 0o755 if executable else 0o644)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(full, 0o755 if executable else 0o644)


def _write_all(root, files):
    for source in files:
        _write(root, source["path"], source["content"], source.get("executable", False), source.get("encoding"))


async def write_sources(request):
    loop = asyncio.get_running_loop()
    agents = [source for source in request["files"] if source["area"] == "agents"]
    workspace = [source for source in request["files"] if source["area"] == "workspace"]
    if agents:
        await loop.run_in_executor(None, _write_all, AGENTS_WRITABLE_DIR, agents)
    if workspace:
        await loop.run_in_executor(TOOL_EXECUTOR, _write_all, WORKSPACE, workspace)
    return {"written": len(agents) + len(workspace)}
