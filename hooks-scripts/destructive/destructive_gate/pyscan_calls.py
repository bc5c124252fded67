"""The python scan's calls (a mixin of _Scan in pyscan.py): the arguments of a call, and what each
known function means: code run as shell, argv or python; forks and new processes; deletes,
moves, permission changes and writes; and the values of path, environment, tempfile, listing and
iterator functions. Anything else goes on to the decoders (pyscan_methods.py).
"""

import ast
import posixpath
import re

from .pytables import (
    _COPY,
    _DELETE,
    _EXEC_L,
    _EXEC_V,
    _FORK,
    _MOVE,
    _PERM,
    _SHELL_STRING,
    _SUBPROCESS,
    NETWORK_PREFIXES,
    _normalize,
)
from .pyvalues import PyConst, PyList, PyMethod, PyObj, PyPath, PyRef, _path_join, _to_str
from .values import EMPTY_VAL, Unknown, Val


class CallScan:
    """call: a function call, by what the callee resolves to."""

    def call(self, node):
        fval = self.ev(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                inner = self.ev(a.value)
                if isinstance(inner, PyList) and inner.items is not None:
                    args.extend(inner.items)
                else:
                    args.append(inner)
            else:
                args.append(self.ev(a))
        kw = {}
        for k in node.keywords:
            v = self.ev(k.value)
            if k.arg:
                kw[k.arg] = v
        if isinstance(node.func, ast.Name) and self.func_stack and node.func.id == self.func_stack[-1]:
            self.recursive_funcs.add(node.func.id)
        raw = self.raw(node)
        if isinstance(fval, PyMethod):
            return self.method(fval, args, kw, raw)
        if isinstance(fval, PyObj) and fval.kind == "download":
            return Val((Unknown("download", maybe_empty=True),))
        if isinstance(fval, PyRef):
            return self.known_call(_normalize(fval.q), args, kw, raw, node)
        return None

    def arg(self, args, kw, i, name):
        if i < len(args):
            return args[i]
        return kw.get(name)

    def known_call(self, q, args, kw, raw, node):
        e = self.e
        if q == "__import__" or q == "importlib.import_module":
            a = args[0] if args else None
            if isinstance(a, Val) and a.known():
                self._note_import(a.known())
                return PyRef(a.known())
            return None
        if q == "getattr":
            obj, name = (args + [None, None])[:2]
            if isinstance(name, Val) and name.known():
                return self.attribute(obj, name.known())
            return None
        if q.startswith(NETWORK_PREFIXES) or q in ("urlopen",):
            self.network = True
            if q.endswith("urlretrieve") and len(args) > 1 and isinstance(args[1], Val):
                self._record(args[1], Val((Unknown("download", maybe_empty=True),)))
            return PyObj("download")
        # -- running code
        if q in _SHELL_STRING:
            cmd = self.val(self.arg(args, kw, 0, "cmd"))
            self._spawn_check(q, raw)
            return self._shell(cmd, raw, "python %s" % q)
        if q in _SUBPROCESS or q == "pty.spawn":
            target = self.arg(args, kw, 0, "args")
            self._spawn_check(q, raw)
            shell = kw.get("shell")
            shell_true = isinstance(shell, PyConst) and bool(shell.value)
            if isinstance(target, PyList) and target.items is not None:
                if shell_true and target.items:
                    return self._shell(self.val(target.items[0]), raw, "python %s(shell=True)" % q)
                stdin = kw.get("input")
                return self._argv(
                    [self.val(x) for x in target.items],
                    raw,
                    "python %s" % q,
                    stdin if isinstance(stdin, Val) else EMPTY_VAL,
                )
            if target is not None:
                return self._shell(self.val(target), raw, "python %s" % q)
            return None
        if q in _EXEC_V:
            skip = _EXEC_V[q]
            path = self.val(self.arg(args, kw, skip, "path"))
            argv = args[skip + 1] if len(args) > skip + 1 else None
            rest = [self.val(x) for x in argv.items[1:]] if isinstance(argv, PyList) and argv.items else []
            self._spawn_check(q, raw)
            return self._argv([path] + rest, raw, "python %s" % q)
        if q in _EXEC_L:
            skip = _EXEC_L[q]
            if skip < 0:
                vals = [self.val(x) for x in args]
            else:
                vals = [self.val(x) for x in args[skip:]]
                vals = vals[:1] + vals[2:]  # path, then argv without argv[0]
            self._spawn_check(q, raw)
            return self._argv(vals, raw, "python %s" % q) if vals else None
        if q in ("exec", "eval", "compile", "execfile", "runpy.run_path"):
            code = self.arg(args, kw, 0, "source")
            if q == "compile":
                return code
            if q in ("execfile", "runpy.run_path"):
                code = self._read(self.val(code))
            return self._python(code, raw, q)
        if q in _FORK:
            if self.loop_depth:
                e.block("fork-bomb", raw, note="fork inside a loop")
            if self.func_stack:
                self.forking_funcs.add(self.func_stack[-1])
            return PyConst(0)
        if q == "multiprocessing.Process" or q.endswith(".Process"):
            self._spawn_check("multiprocessing.Process", raw)
            return PyObj("process")
        # -- files
        if q in _DELETE:
            target = self.val(self.arg(args, kw, 0, "path"))
            e.check_delete(
                self.absolute(target), self.cwd, _DELETE[q] or self.loop_depth > 0, False, raw, tree=False
            )
            return None
        if q in _MOVE:
            src = self.val(self.arg(args, kw, 0, "src"))
            e.check_move(self.absolute(src), self.cwd, raw)
            if len(args) > 1:
                e.check_write(self.absolute(self.val(args[1])), self.cwd, raw)
            return None
        if q in ("os.kill", "os.killpg"):
            # pid -1 is every process the user may signal (docs/gates.md, kill-every-process).
            pid = self.val(self.arg(args, kw, 0, "pid"))
            every = "-1" if q == "os.kill" else "1"  # killpg(1) is process group 1: init's, everyone's
            if pid.known() is not None and pid.known().strip() == every:
                e.block("kill-every-process", raw, note="pid -1 is every process the user may signal")
            return None
        if q in _PERM:
            target = self.val(self.arg(args, kw, 0, "path"))
            e.check_perm(self.absolute(target), self.cwd, self.loop_depth > 0, raw)
            return None
        if q in _COPY:
            dst = self.arg(args, kw, 1, "dst")
            if dst is not None:
                e.check_write(self.absolute(self.val(dst)), self.cwd, raw)
            return None
        if q == "open":
            path = self.val(self.arg(args, kw, 0, "file"))
            mode = self.arg(args, kw, 1, "mode")
            m = mode.known() if isinstance(mode, Val) else "r"
            if m is None or any(c in m for c in "wax+"):
                e.check_write(self.absolute(path), self.cwd, raw)
                return PyObj("file", self.absolute(path))
            return PyObj("rfile", path)
        if q == "os.open":
            path = self.val(self.arg(args, kw, 0, "path"))
            flags_src = self.raw(node.args[1]) if len(node.args) > 1 else ""
            if re.search(r"O_(WRONLY|RDWR|CREAT|TRUNC|APPEND)", flags_src) or not re.search(
                r"O_RDONLY", flags_src
            ):
                e.check_write(self.absolute(path), self.cwd, raw)
            return PyConst(3)
        if q == "os.truncate":
            e.check_write(self.absolute(self.val(self.arg(args, kw, 0, "path"))), self.cwd, raw)
            return None
        if q == "os.chdir":
            target = self.val(self.arg(args, kw, 0, "path"))
            t = target.known()
            self.cwd = (
                posixpath.normpath(t if t.startswith("/") else (self.cwd or "") + "/" + t)
                if t and (t.startswith("/") or self.cwd)
                else None
            )
            return None
        # -- values
        if q in ("os.getcwd", "os.getcwdb"):
            return Val.of(self.cwd) if self.cwd else Val((Unknown("python"),))
        if q in ("os.getenv", "os.environ.get", "os.getenvb"):
            name = self.arg(args, kw, 0, "key")
            default = self.arg(args, kw, 1, "default")
            if isinstance(name, Val) and name.known():
                return self.env_var(name.known(), default if isinstance(default, Val) else None)
            return None
        if q in ("os.path.join", "posixpath.join"):
            return _path_join([self.val(a) for a in args]) if args else None
        if q in (
            "os.path.expanduser",
            "os.path.expandvars",
            "os.fsdecode",
            "os.fsencode",
            "os.path.normpath",
            "str",
            "os.fspath",
        ):
            if not args:
                return Val.of("")
            a = args[0]
            if isinstance(a, PyPath):
                return a.val
            if isinstance(a, Val) and q == "os.path.expanduser":
                t = a.known()
                if t is not None and (t == "~" or t.startswith("~/")):
                    return Val.of(self.home + t[1:])
            return a if isinstance(a, Val) else (self.val(a) if isinstance(a, PyConst) else None)
        if q in ("os.path.abspath", "os.path.realpath"):
            return self.absolute(self.val(args[0])) if args else None
        if q == "os.path.dirname":
            a = self.val(args[0]) if args else EMPTY_VAL
            t = a.known()
            return Val.of(posixpath.dirname(t)) if t is not None else None
        if q == "pathlib.Path" or q == "pathlib.Path.cwd" or q == "pathlib.Path.home":
            if q.endswith("home"):
                return PyPath(Val.of(self.home))
            if q.endswith("cwd"):
                return PyPath(Val.of(self.cwd) if self.cwd else Val((Unknown("python"),)))
            return PyPath(_path_join([self.val(a) for a in args]) if args else Val.of("."))
        if q in ("tempfile.mkdtemp", "tempfile.gettempdir"):
            return self.tmp()
        if q == "tempfile.mkstemp":
            return PyList([PyConst(3), self.tmp()])
        if q in ("tempfile.TemporaryDirectory",):
            return PyObj("tmpdir", self.tmp())
        if q in ("tempfile.NamedTemporaryFile", "tempfile.TemporaryFile", "tempfile.SpooledTemporaryFile"):
            return PyObj("file", self.tmp())
        if q == "os.listdir":
            return PyList(elem=Val(("./", Unknown("found"))))
        if q == "os.scandir":
            d = self.val(args[0]) if args else Val.of(".")
            return PyList(elem=PyObj("entry", d + Val(("/", Unknown("found")))))
        if q == "os.walk":
            d = self.val(args[0]) if args else Val.of(".")
            names = PyList(elem=Val(("./", Unknown("found"))))
            return PyList(
                elem=PyList([d + Val((Unknown("found", subpath=True, maybe_empty=True),)), names, names])
            )
        if q in ("glob.glob", "glob.iglob"):
            pat = self.val(args[0]) if args else Val.of("*")
            return PyList(elem=_glob_elem(pat))
        if (
            q in ("itertools.count", "itertools.cycle")
            or (q == "itertools.repeat" and len(args) < 2 and "times" not in kw)
            or (q == "iter" and len(args) == 2)
        ):
            return PyList(elem=None, infinite=True)
        if q == "range":
            return PyList(elem=PyConst(0))
        if q == "chr":
            a = args[0] if args else None
            if isinstance(a, PyConst) and isinstance(a.value, int):
                try:
                    return Val.of(chr(a.value))
                except (ValueError, OverflowError):
                    return None
            return Val((Unknown("decode"),))
        if q in ("bytes", "bytearray") and args and isinstance(args[0], PyList) and args[0].items is not None:
            try:
                return Val.of(_to_str(bytes(x.value for x in args[0].items)))
            except (AttributeError, TypeError, ValueError):
                return Val((Unknown("decode"),))
        if q in ("bytes", "bytearray", "str") and args and isinstance(args[0], Val):
            return args[0]
        if q in ("reversed",) and args and isinstance(args[0], Val) and args[0].known() is not None:
            return PyList([Val.of(c) for c in reversed(args[0].known())])
        if q in ("list", "tuple", "sorted") and args:
            a = args[0]
            if isinstance(a, Val) and a.known() is not None:
                return PyList([Val.of(c) for c in a.known()])
            return a
        if q == "map" and len(args) == 2:
            fn, seq = args
            if isinstance(fn, PyRef) and fn.q == "chr" and isinstance(seq, PyList) and seq.items is not None:
                try:
                    return PyList([Val.of(chr(x.value)) for x in seq.items])
                except (AttributeError, TypeError, ValueError):
                    return PyList(elem=Val((Unknown("decode"),)))
            return PyList(elem=None)
        return self.decode_call(q, args, kw)


def _glob_elem(pat):
    t = pat.known()
    if t is None:
        return Val((Unknown("found"),))
    m = re.search(r"[*?\[]", t)
    if not m:
        return Val.of(t)
    prefix = t[: m.start()]
    head = prefix[: prefix.rfind("/") + 1] if "/" in prefix else "./"
    return Val((head, Unknown("found")))
