#!/usr/bin/env python3
"""hookbox audit hook: a post_tool_execution handler that appends one JSON line per tool call to
$HOOKBOX_STATE_DIR/audit.jsonl (the hook state dir: tool code can neither read nor change it).

Each line: {"ts", "environment_id", "event", "tool", "args", "error", "exit_code", "timed_out"}
(error, exit_code and timed_out only when the call produced them). Long argument strings (file
contents, big scripts) are cut to max_arg_chars with a note of the original length.

A post hook cannot block or undo anything, and its output is ignored: this one prints nothing and
always exits 0, whatever goes wrong (a broken audit must never look like a failing tool call).
Problems are reported on stderr, which hookbox records.
"""

import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULTS = {"file": "audit.jsonl", "max_arg_chars": 4096, "include_output": False, "max_output_chars": 2048}


def load_config():
    config = dict(DEFAULTS)
    try:
        with open(os.path.join(HERE, "config.json"), encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return config
    for key, value in data.items():
        if key.startswith("_"):
            continue
        if key not in DEFAULTS or type(value) is not type(DEFAULTS[key]):
            raise ValueError("config.json: unknown key or wrong type: %r" % key)
        config[key] = value
    if os.sep in config["file"] or config["file"] in ("", ".", ".."):
        raise ValueError("config.json: file must be a plain file name inside the state dir")
    return config


def clip(value, limit):
    """Cut long strings anywhere in the arguments, keeping the structure."""
    if isinstance(value, str):
        if len(value) > limit:
            return value[:limit] + "...[%d chars]" % len(value)
        return value
    if isinstance(value, list):
        return [clip(v, limit) for v in value]
    if isinstance(value, dict):
        return {k: clip(v, limit) for k, v in value.items()}
    return value


def record(payload, config):
    call = payload.get("tool_call") if isinstance(payload.get("tool_call"), dict) else {}
    entry = {
        "ts": datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "environment_id": payload.get("environment_id") or os.environ.get("HOOKBOX_ENVIRONMENT_ID"),
        "event": os.environ.get("HOOKBOX_EVENT", "post_tool_execution"),
        "tool": call.get("name") or os.environ.get("HOOKBOX_TOOL_NAME"),
        "args": clip(call.get("args"), config["max_arg_chars"]),
    }
    if "unparsed_input" in payload:
        entry["unparsed_input"] = payload["unparsed_input"]
    if payload.get("error") is not None:
        entry["error"] = clip(payload["error"], config["max_arg_chars"])
    result = payload.get("result")
    if isinstance(result, dict):
        for key in ("exit_code", "timed_out"):
            if key in result:
                entry[key] = result[key]
        if config["include_output"]:
            for key in ("stdout", "stderr"):
                if isinstance(result.get(key), str):
                    entry[key] = clip(result[key], config["max_output_chars"])
    return entry


def append(raw, config):
    state_dir = os.environ.get("HOOKBOX_STATE_DIR")
    if not state_dir:
        raise RuntimeError("HOOKBOX_STATE_DIR is not set")
    try:
        payload = json.loads(raw)
        if not isinstance(payload, dict):
            raise ValueError("not an object")
    except ValueError:
        payload = {"unparsed_input": raw[:4096]}
    line = (json.dumps(record(payload, config), ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")
    # One write on an O_APPEND descriptor: lines from successive calls never interleave.
    fd = os.open(os.path.join(state_dir, config["file"]), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def serve_worker():
    """Worker mode (hookbox sets HOOKBOX_WORKER=1 for a handler with "worker": true; see
    docs/gates.md, "Prestart and workers"): one {"env": {...}, "event": {...}} line in, one line
    out ({} once the entry is written), until stdin closes."""
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line.decode("utf-8", "replace"))
            os.environ.update(message.get("env") or {})
            append(json.dumps(message.get("event")), load_config())
        except Exception as err:  # never fail the call: report and answer
            sys.stderr.write("audit hook: %s: %s\n" % (type(err).__name__, err))
            sys.stderr.flush()
        sys.stdout.write("{}\n")
        sys.stdout.flush()


def main():
    if os.environ.get("HOOKBOX_WORKER") == "1":
        serve_worker()
        return
    try:
        append(sys.stdin.buffer.read().decode("utf-8", "replace"), load_config())
    except Exception as err:  # never fail the call: report and exit 0
        sys.stderr.write("audit hook: %s: %s\n" % (type(err).__name__, err))


if __name__ == "__main__":
    main()
    sys.exit(0)
