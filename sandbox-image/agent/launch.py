"""What the processes the agent starts are given: the environments of tool code and of hooks
(docs/contract.md §2), and the argv of tool code (a hook's: hook_command.py)."""

import os

import files
import http_hooks
import protocol

STATE_DIR = protocol.PATHS["stateDir"]
WORKSPACE = protocol.PATHS["workspace"]
# Loaded by every node a hook starts (sandbox-image/node-no-workspace-modules.cjs).
NODE_PRELOAD_OPTION = "--require=/usr/lib/hookbox/node-no-workspace-modules.cjs"


# git refuses a repository owned by another user, and /workspace belongs to root (docs/security.md,
# "/workspace cannot be locked"): tool code is given /workspace as a safe directory in its own
# environment (git's "command" scope, which it trusts as it trusts /etc/gitconfig). The hook user is
# not: a repository tool code planted (`core.fsmonitor`, hooks, aliases) must never run as it
# (docs/security.md, "Hooks and the workspace").
TOOL_GIT_SAFE_DIRECTORY = {
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "safe.directory",
    "GIT_CONFIG_VALUE_0": WORKSPACE,
}


def tool_environment():
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": WORKSPACE,
        "TMPDIR": files.TOOL_TMPDIR,
        "USER": "tool",
        "LOGNAME": "tool",
        "LANG": "C.UTF-8",
        "PWD": WORKSPACE,
        **TOOL_GIT_SAFE_DIRECTORY,
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
        # cwd is /workspace, which tool code writes: never import modules from it. Python leaves
        # the cwd off sys.path; node's preload drops /workspace from `node -e`'s module search
        # (docs/security.md, "Hooks and the workspace").
        "PYTHONSAFEPATH": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NODE_OPTIONS": NODE_PRELOAD_OPTION,
        **http_hooks.proxy_environment(),
    }
    env.update({str(k): str(v) for k, v in (extra or {}).items()})
    return env


def hook_environment_as_tool(extra):
    """A `"run_as": "tool"` handler's (docs/gates.md, "Running workspace code from a hook"): the
    hook's values, with the tool user's home, temporary folder, name and git safe directory, and
    node free to load the workspace's packages (what such a handler is for)."""
    env = hook_environment(extra)
    if env.get("NODE_OPTIONS") == NODE_PRELOAD_OPTION:
        del env["NODE_OPTIONS"]
    env.update(
        {
            "HOME": WORKSPACE,
            "TMPDIR": files.TOOL_TMPDIR,
            "USER": "tool",
            "LOGNAME": "tool",
            **TOOL_GIT_SAFE_DIRECTORY,
        }
    )
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
