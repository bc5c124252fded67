"""The agent's channel socket: the controller's faster way in (docs/agent-protocol.md, "The stream").

Beside the container's stdio, the agent listens on agent.sock in a root-only tmpfs inside
/opt/hookbox (0700), which neither the tool user nor the hook user can enter. A controller on the
engine's host reaches it through the container's root as the host's /proc shows it; the same
newline-framed requests and answers travel over it, each connection getting the answers to its own
requests. Only root may connect (the peer's credentials are checked as well as the folder's mode).
"""

import asyncio
import contextlib
import contextvars
import os
import socket
import struct

# Where the answers of the request being served go: the channel connection it came on, or stdout.
WRITER = contextvars.ContextVar("writer")


async def listen(folder, serve_lines, limit):
    """Listens on `folder`/agent.sock (mode 0600) when the folder exists; returns the server, or
    None (an engine that cannot reach into the container does not mount it)."""
    if not os.path.isdir(folder):
        return None
    path = os.path.join(folder, "agent.sock")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    server = await asyncio.start_unix_server(lambda reader, writer: _serve(reader, writer, serve_lines), path=path, limit=limit)
    os.chmod(path, 0o600)
    return server


def _peer_uid(writer):
    sock = writer.get_extra_info("socket")
    if sock is None:
        return None
    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return uid


async def _serve(reader, writer, serve_lines):
    try:
        if _peer_uid(writer) != 0:
            return
        WRITER.set(writer.write)
        await serve_lines(reader)
    finally:
        writer.close()
