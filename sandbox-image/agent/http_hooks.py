"""`http` hook handlers (docs/contract.md §4) and the proxy settings of an environment with a network (docs/contract.md §7).

The agent POSTs the event JSON through the environment's egress proxy, in absolute form with an
https:// target ("POST https://host/path HTTP/1.1"), plain HTTP to the proxy, with the environment's
hook token. The proxy checks the allowlist, makes the TLS connection upstream itself and adds the
allowlist entry's `transform` headers there: the secret never enters the sandbox. The token is given
with each request over the agent's stdio and lives only in this process's memory (root; tool code
can neither read its memory nor trace it).

The answer is reported like a command hook's run: the body is the "stdout", `http_status` the status,
and `failure` a reason when the POST never got an upstream answer (the proxy refused or could not
connect; the proxy marks its own answers with the x-hookbox-egress-rule header).
"""

import asyncio
import http.client
import os
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

PROXY_ENV = "HOOKBOX_EGRESS_PROXY"
RULE_HEADER = "x-hookbox-egress-rule"
TOKEN_HEADER = "X-Hookbox-Hook-Token"

_executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="http-hook")


def proxy_environment():
    """HTTP_PROXY and friends for tool code and command hooks, when the environment has a network."""
    proxy = os.environ.get(PROXY_ENV)
    if not proxy:
        return {}
    return {
        "HTTP_PROXY": proxy,
        "HTTPS_PROXY": proxy,
        "http_proxy": proxy,
        "https_proxy": proxy,
        "NO_PROXY": "",
        "no_proxy": "",
    }


def _post(request, holder):
    proxy = urllib.parse.urlsplit(request["proxy"])
    timeout = request["timeout_ms"] / 1000
    connection = http.client.HTTPConnection(proxy.hostname, proxy.port or 3128, timeout=timeout)
    holder["connection"] = connection
    headers = {"Content-Type": "application/json", "User-Agent": "hookbox-http-hook/1"}
    for name, value in (request.get("headers") or {}).items():
        for existing in [key for key in headers if key.lower() == str(name).lower()]:
            del headers[existing]
        headers[str(name)] = str(value)
    headers[TOKEN_HEADER] = request["token"]
    try:
        connection.request("POST", request["url"], body=request["body"].encode(), headers=headers)
        response = connection.getresponse()
        cap = request["output_cap_bytes"]
        data = response.read(cap + 1)
        return response.status, data, response.getheader(RULE_HEADER)
    finally:
        connection.close()


async def run(request):
    started = time.monotonic()
    holder = {}
    future = asyncio.get_running_loop().run_in_executor(_executor, _post, request, holder)
    cap = request["output_cap_bytes"]
    result = {
        "exit_code": None,
        "timed_out": False,
        "stdout": "",
        "stderr": "",
        "truncated": False,
    }
    try:
        status, data, rule = await asyncio.wait_for(asyncio.shield(future), request["timeout_ms"] / 1000)
    except asyncio.TimeoutError:
        connection = holder.get("connection")
        if connection is not None and connection.sock is not None:
            try:
                connection.sock.shutdown(2)
            except OSError:
                pass
        result["timed_out"] = True
    except (OSError, http.client.HTTPException) as error:
        text = str(error) or type(error).__name__
        if isinstance(error, TimeoutError):
            result["timed_out"] = True
        else:
            result["failure"] = f"could not POST through the egress proxy: {text}"
    else:
        body = data[:cap].decode("utf-8", errors="replace")
        result["http_status"] = status
        result["stdout"] = body
        result["truncated"] = len(data) > cap
        if rule is not None:
            # The proxy's own answer (a refusal, or an upstream it could not reach), not the hook server's.
            result["failure"] = body.strip() or f"egress proxy answered {status} ({rule})"
    result["duration_ms"] = round((time.monotonic() - started) * 1000, 3)
    return result
