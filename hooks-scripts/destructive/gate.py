#!/usr/bin/env python3
"""hookbox destructive-command gate: a pre_tool_execution hook for code_execution.

Reads the event JSON on stdin and prints exactly one JSON object: {"decision": "allow"} or
{"decision": "deny", "reason": "<rule>: <command> ..."}. The analysis (shell and python, with
pipes, variables, wrappers, nested interpreters and decoders followed) lives in the
destructive_gate package next to this file; docs/gates.md lists the rules and config.json keys.

Run it with `"on_error": "deny"`: if anything here crashes, hookbox then blocks the call rather
than letting it through. The gate itself also fails closed on a bad config.json.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _import_engine():
    # The standard library keeps using its own bytecode; only the package is cached elsewhere.
    import ast, base64, binascii, codecs, posixpath, re, shlex, time  # noqa: E401,F401

    prefix = _state_dir_prefix()
    saved = (sys.pycache_prefix, sys.dont_write_bytecode)
    if prefix:
        sys.pycache_prefix, sys.dont_write_bytecode = prefix, False
    try:
        from destructive_gate.engine import decide
    finally:
        sys.pycache_prefix, sys.dont_write_bytecode = saved
    return decide


def _state_dir_prefix():
    # /.agents is read-only, so python would compile the package on every call (about 50 ms).
    # The hook state dir is writable by hooks only, never by tool code, so bytecode cached there
    # cannot be planted by the code under review. hookbox sets PYTHONDONTWRITEBYTECODE for hooks
    # to keep __pycache__ out of /workspace and /.agents; with a prefix in the state dir neither
    # is touched, so the gate turns writing back on for itself.
    state = os.environ.get("HOOKBOX_STATE_DIR")
    if state and os.path.isdir(state) and os.access(state, os.W_OK):
        return os.path.join(state, ".pycache")
    return None


# A first decide() in a fresh process is ~1.5 ms slower than the next (config parse, the regular
# expressions' cache, cold code paths). One run on this fixed, harmless call before stdin is read
# takes that off the event's path when the process is started ahead (docs/gates.md, "Prestart and
# workers"). Nothing of the event's is in it, and decide() keeps no state between calls.
WARM_UP_EVENT = {
    "hook_event_name": "pre_tool_execution",
    "tool_call": {"name": "code_execution", "args": {"language": "bash", "code": "cd /workspace && ls -la | head -n 5"}},
}


def warm_up(decide):
    try:
        decide(WARM_UP_EVENT, os.path.join(HERE, "config.json"))
    except Exception:  # the real event meets the same fault and answers for it
        pass


def serve_worker(decide):
    """Worker mode (hookbox sets HOOKBOX_WORKER=1 for a handler with "worker": true; see
    docs/gates.md, "Prestart and workers"): one {"env": {...}, "event": {...}} line in, one
    decision line out, until stdin closes. Anything that goes wrong ends the worker: hookbox then
    answers the event with a one-shot run of this script, which fails closed on its own."""
    config_path = os.path.join(HERE, "config.json")
    for line in sys.stdin.buffer:
        message = json.loads(line.decode("utf-8", "surrogateescape"))
        os.environ.update(message.get("env") or {})
        sys.stdout.write(json.dumps(decide(message.get("event"), config_path)) + "\n")
        sys.stdout.flush()


def main():
    # hookbox runs hooks with PYTHONSAFEPATH (cwd is the workspace, which tool code writes), so
    # the script's own folder is not on sys.path either: add it explicitly.
    sys.path.insert(0, HERE)
    # The engine is imported before stdin is read, so a process hookbox starts ahead of the event
    # (docs/gates.md, "Prestart and workers") has it loaded when the payload comes.
    decide = _import_engine()
    warm_up(decide)
    if os.environ.get("HOOKBOX_WORKER") == "1":
        serve_worker(decide)
        return
    try:
        payload = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogateescape") or "null")
    except ValueError as err:
        print(json.dumps({"decision": "deny", "reason": "gate-input-error: stdin is not JSON (%s)" % err}))
        return
    decision = decide(payload, os.path.join(HERE, "config.json"))
    sys.stdout.write(json.dumps(decision) + "\n")
    # The answer is out: skip the interpreter's tear-down of the engine's modules (about three
    # quarters of a prestarted run, docs/gates.md "Prestart and workers"). Nothing is left to write.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
