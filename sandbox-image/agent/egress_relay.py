"""The egress relay: the one other member of an environment's internal Docker network.

It runs in its own small container (the sandbox image, as nobody, no capabilities, read-only), listens
on the internal network and copies each TCP connection, byte for byte, to the environment's egress
proxy: a Unix socket of the controller, bind-mounted read-only into this container. It decides
nothing; the proxy does. It cannot reach anything else: its only interface is the internal network,
whose bridge holds no host address (docker network option inhibit_ipv4).

The controller runs it with `python3 -I -B -c <this file>`, so it needs no readable file in the image.
Prints "ready" on stdout once it listens and sees the proxy's socket; an error line and exit 1 if not.
"""

import asyncio
import os
import stat
import sys

SOCKET = os.environ.get("HOOKBOX_RELAY_SOCKET", "/run/hookbox-egress/proxy.sock")
PORT = int(os.environ.get("HOOKBOX_RELAY_PORT", "3128"))
MAX_CONNECTIONS = int(os.environ.get("HOOKBOX_RELAY_MAX_CONNECTIONS", "256"))
CHUNK = 65536

active = 0


async def pump(reader, writer):
    """Copies one direction until EOF, then half-closes the other side."""
    while True:
        data = await reader.read(CHUNK)
        if not data:
            break
        writer.write(data)
        await writer.drain()
    if writer.can_write_eof():
        writer.write_eof()


async def relay(client_reader, client_writer):
    global active
    if active >= MAX_CONNECTIONS:
        client_writer.transport.abort()
        return
    active += 1
    upstream_writer = None
    try:
        try:
            upstream_reader, upstream_writer = await asyncio.open_unix_connection(SOCKET)
        except OSError as error:
            body = f"hookbox egress relay: the egress proxy is gone ({error.strerror})\n".encode()
            client_writer.write(
                b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
                b"X-Hookbox-Egress-Rule: proxy-unavailable\r\nConnection: close\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await client_writer.drain()
            return
        pumps = [
            asyncio.ensure_future(pump(client_reader, upstream_writer)),
            asyncio.ensure_future(pump(upstream_reader, client_writer)),
        ]
        # Both directions run to their EOF; a reset on either side ends both.
        done, pending = await asyncio.wait(pumps, return_when=asyncio.FIRST_EXCEPTION)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
    except (ConnectionError, OSError):
        pass
    finally:
        active -= 1
        for writer in (client_writer, upstream_writer):
            if writer is not None:
                writer.transport.abort()


async def main():
    try:
        info = os.stat(SOCKET)
    except OSError as error:
        print(f"error: the egress proxy socket {SOCKET} is not there ({error.strerror}); is the Docker engine on another host?", flush=True)
        sys.exit(1)
    if not stat.S_ISSOCK(info.st_mode):
        print(f"error: {SOCKET} is not a socket", flush=True)
        sys.exit(1)
    server = await asyncio.start_server(relay, host="0.0.0.0", port=PORT, limit=CHUNK, backlog=128)
    print(f"ready {PORT}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
