"""The tables of python names the scan knows: network modules, builtins, import aliases, and the
functions that run a shell string, an argv, delete, move, copy, change permissions or fork; with
_normalize, which maps an alias (posix, io.open, pathlib.PurePath ...) to the name the tables use.
"""

NETWORK_PREFIXES = (
    "urllib.request",
    "urllib2",
    "requests",
    "httpx",
    "urllib3",
    "http.client",
    "aiohttp",
    "ftplib",
    "socket",
    "pycurl",
)

_BUILTINS = frozenset(
    {
        "exec",
        "eval",
        "compile",
        "open",
        "__import__",
        "getattr",
        "chr",
        "str",
        "bytes",
        "bytearray",
        "iter",
        "range",
        "list",
        "tuple",
        "map",
        "reversed",
        "sorted",
        "print",
        "input",
        "vars",
        "globals",
        "setattr",
    }
)
_ALIASES = {
    "posix": "os",
    "builtins": "",
    "io.open": "open",
    "codecs.open": "open",
    "pathlib.PosixPath": "pathlib.Path",
    "pathlib.PurePath": "pathlib.Path",
    "pathlib.PurePosixPath": "pathlib.Path",
    "os.popen2": "os.popen",
    "commands": "subprocess",
    "importlib.import_module": "__import__",
}
_SHELL_STRING = frozenset(
    {
        "os.system",
        "os.popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "asyncio.create_subprocess_shell",
        "os.popen3",
        "os.popen4",
    }
)
_SUBPROCESS = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
    }
)
_EXEC_V = {
    "os.execv": 0,
    "os.execve": 0,
    "os.execvp": 0,
    "os.execvpe": 0,
    "os.spawnv": 1,
    "os.spawnve": 1,
    "os.spawnvp": 1,
    "os.spawnvpe": 1,
    "os.posix_spawn": 0,
    "os.posix_spawnp": 0,
}
_EXEC_L = {
    "os.execl": 0,
    "os.execle": 0,
    "os.execlp": 0,
    "os.execlpe": 0,
    "os.spawnl": 1,
    "os.spawnle": 1,
    "os.spawnlp": 1,
    "os.spawnlpe": 1,
    "asyncio.create_subprocess_exec": -1,
}
_DELETE = {
    "shutil.rmtree": True,
    "os.removedirs": False,
    "os.remove": False,
    "os.unlink": False,
    "os.rmdir": False,
}
_MOVE = frozenset({"shutil.move", "os.rename", "os.replace", "os.renames"})
_PERM = frozenset(
    {"os.chmod", "os.lchmod", "os.chown", "os.lchown", "shutil.chown", "os.chflags", "os.lchflags"}
)
_COPY = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copyfileobj"})
_FORK = frozenset({"os.fork", "os.forkpty", "pty.fork"})
_SPAWNERS = frozenset(
    {
        "subprocess.Popen",
        "multiprocessing.Process",
        "os.posix_spawn",
        "os.posix_spawnp",
        "subprocess.run",
        "subprocess.call",
        "os.system",
        "os.popen",
    }
)


def _normalize(q):
    for old, new in _ALIASES.items():
        if q == old:
            return new
        if q.startswith(old + "."):
            rest = q[len(old) + 1 :]
            return new + "." + rest if new else rest
    return q
