"""Placing the sources a request sends: gates into /.agents (as root, through the only writable
mount of that volume, which tool code cannot reach), workspace files as the tool user (so the
kernel checks the writes, and tool code owns the files).

Every file is checked and decoded before the first one is written, so a refused request leaves
everything as it was; a gate update is written into a staging folder first and then moved into
place by renames (docs/security.md, "Replacing the gates").
"""

import asyncio
import base64
import binascii
import os
import shutil

from files import TOOL_EXECUTOR, WORKSPACE
from protocol import PATHS

AGENTS_WRITABLE_DIR = PATHS["agentsWritable"]
# Made beside the gates (same filesystem, so moving them in is a rename), removed after the swap.
STAGING_PREFIX = ".hookbox-staging-"
RETIRED_PREFIX = ".hookbox-retired-"


def _safe_relative(path):
    # The controller validated every target; this is the agent's own line of defence.
    if not isinstance(path, str):
        raise ValueError("refusing a source path that is not a string")
    parts = path.split("/")
    if not path or path.startswith("/") or any(part in ("", ".", "..") for part in parts) or "\0" in path:
        raise ValueError(f"refusing source path {path!r}")
    path.encode("utf-8")  # a lone surrogate cannot name a file
    return path


def _content(source):
    """The file's bytes. `content_b64` (what the controller sends: its size never grows with JSON
    escaping) or `content` (UTF-8 text; a lone surrogate is refused, never replaced)."""
    if "content_b64" in source:
        try:
            return base64.b64decode(source["content_b64"], validate=True)
        except (binascii.Error, TypeError) as error:
            raise ValueError(f"{source.get('path')!r}: content_b64 is not base64") from error
    try:
        return source["content"].encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{source.get('path')!r}: content is not valid UTF-8 text ({error.reason})") from error


def prepare(files):
    """Checks and decodes every file; raises before anything is written."""
    prepared = []
    for source in files:
        if source.get("area") not in ("agents", "workspace"):
            raise ValueError(f"refusing source area {source.get('area')!r}")
        path = _safe_relative(source.get("path"))
        prepared.append((source["area"], path, _content(source), bool(source.get("executable", False))))
    return prepared


def _write(root, path, data, executable):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), mode=0o755, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK
    descriptor = os.open(full, flags, 0o755 if executable else 0o644)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(full, 0o755 if executable else 0o644)


def _write_all(root, files):
    for _, path, data, executable in files:
        _write(root, path, data, executable)


def _replace_agents(files):
    """Stages the new gates beside the old ones, then swaps them in with renames: until the
    staging is complete nothing the hooks see has changed."""
    staging = os.path.join(AGENTS_WRITABLE_DIR, STAGING_PREFIX + os.urandom(6).hex())
    retired = os.path.join(AGENTS_WRITABLE_DIR, RETIRED_PREFIX + os.urandom(6).hex())
    os.mkdir(staging, 0o755)
    try:
        _write_all(staging, files)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    os.mkdir(retired, 0o700)
    for name in os.listdir(AGENTS_WRITABLE_DIR):
        if name.startswith((STAGING_PREFIX, RETIRED_PREFIX)):
            continue
        os.rename(os.path.join(AGENTS_WRITABLE_DIR, name), os.path.join(retired, name))
    for name in os.listdir(staging):
        os.rename(os.path.join(staging, name), os.path.join(AGENTS_WRITABLE_DIR, name))
    os.rmdir(staging)
    shutil.rmtree(retired, ignore_errors=True)


def _remove_leftovers():
    # An agent killed mid-swap leaves these; they are never gates.
    for name in os.listdir(AGENTS_WRITABLE_DIR):
        if name.startswith((STAGING_PREFIX, RETIRED_PREFIX)):
            shutil.rmtree(os.path.join(AGENTS_WRITABLE_DIR, name), ignore_errors=True)


async def write_sources(request):
    loop = asyncio.get_running_loop()
    prepared = prepare(request["files"])
    agents = [source for source in prepared if source[0] == "agents"]
    workspace = [source for source in prepared if source[0] == "workspace"]
    if agents:
        await loop.run_in_executor(None, _write_all, AGENTS_WRITABLE_DIR, agents)
    if workspace:
        await loop.run_in_executor(TOOL_EXECUTOR, _write_all, WORKSPACE, workspace)
    return {"written": len(agents) + len(workspace)}


async def replace_agents(request):
    """Replaces all of /.agents with the request's `agents` files (docs/contract.md §3), or changes nothing."""
    prepared = prepare(request["files"])
    if any(area != "agents" for area, *_ in prepared):
        raise ValueError("replace_agents takes .agents files only")
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, _remove_leftovers)
    await loop.run_in_executor(None, _replace_agents, prepared)
    return {"written": len(prepared)}
