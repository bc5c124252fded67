"""What the processes the agent starts are given: the environments of tool code and of hooks
(docs/contract.md §2), and the argv of tool code (a hook's: hook_command.py)."""

import os

import files
import http_hooks
import protocol

STATE_DIR = protocol.PATHS["stateDir"]
WORKSPACE = protocol.PATHS["workspace"]


def tool_environment():
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": WORKSPACE,
        "TMPDIR": files.TOOL_TMPDIR,
        "USER": "tool",
        "LOGNAME": "tool",
        "LANG": "C.UTF-8",
        "PWD": WORKSPACE,
        **http_hooks.proxy_environment(),
    }


def hook_environment(extra):
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": STATE_DIR,
        "TMPDIR": STATE_DIR,
        "USER": "hook",
        "LOGNAME": "hook",
        "LANG": "C.UTF-8",
        "PWD": WORKSPACE,
        # cwd is /workspace, which tool code writes: never import Python modules from it.
        "PYTHONSAFEPATH": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        **http_hooks.proxy_environment(),
    }
    env.update({str(k): str(v) for k, v in (extra or {}).items()})
    return env


INTERPRETERS = {"bash": "/bin/bash", "sh": "/bin/sh", "python": "/usr/bin/python3"}
# The kernel refuses a single argument of 128 KiB or more (MAX_ARG_STRLEN, counting its NUL). Longer
# code reaches the interpreter on descriptor 3 instead: bash and sh run it as a script file ($0 is
# /dev/fd/3); Python compiles it as `-c` would (sys.path[0] stays the cwd, the file name "<string>").
LONGEST_ARGUMENT_BYTES = 128 * 1024 - 1
PYTHON_FROM_DESCRIPTOR_3 = 'exec(compile(open(3, encoding="utf-8", errors="surrogateescape").read(), "<string>", "exec"))'


def code_command(language, code):
    """The argv that runs `code`, and the script to hand over on descriptor 3 (None: in argv)."""
    interpreter = INTERPRETERS[language]
    encoded = os.fsencode(code)
    if len(encoded) <= LONGEST_ARGUMENT_BYTES:
        return [interpreter, "-c", code], None
    if language == "python":
        return [interpreter, "-c", PYTHON_FROM_DESCRIPTOR_3], encoded
    return [interpreter, "/dev/fd/3"], encoded
