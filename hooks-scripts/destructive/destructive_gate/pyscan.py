"""Python code, read through the `ast` module.

The scan follows assignments in program order (a light constant propagation), resolves import
aliases (`import shutil as s`, `from os import system as run`, `__import__('os')`,
`getattr(os, 'sys' + 'tem')`), evaluates the usual decoders (base64, hex, rot13, zlib, chr/join,
slicing backwards) and then applies the same rules as the shell analysis:

  * strings given to os.system / os.popen / subprocess (shell=True or not) are analysed as shell;
  * argv lists given to subprocess / os.exec* / os.spawn* / pty.spawn are analysed as commands;
  * shutil.rmtree, os.remove/unlink/rmdir, Path.unlink/rmdir, moves: the path rules;
  * os.chmod/chown: the permission rule; open(..., 'w') and friends: device and system writes;
  * os.fork in any loop or in a recursive function, and process creation in an endless loop;
  * exec/eval/compile of code: analysed again, refused when it was downloaded or cannot be read.
"""

import ast
import base64
import binascii
import codecs
import posixpath
import re

from .values import EMPTY_VAL, Unknown, Val

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


class PyList:
    """A list, tuple or iterator: known items, or one value standing for every element."""

    __slots__ = ("items", "elem", "infinite")

    def __init__(self, items=None, elem=None, infinite=False):
        self.items, self.elem, self.infinite = items, elem, infinite


class PyPath:
    __slots__ = ("val",)

    def __init__(self, val):
        self.val = val


class PyRef:
    """A module, function or class, by qualified name (os.system, shutil, pathlib.Path)."""

    __slots__ = ("q",)

    def __init__(self, q):
        self.q = q


class PyMethod:
    __slots__ = ("obj", "name")

    def __init__(self, obj, name):
        self.obj, self.name = obj, name


class PyObj:
    """Something with a path: an open file, a temporary directory, a DirEntry, a download."""

    __slots__ = ("kind", "val")

    def __init__(self, kind, val=None):
        self.kind, self.val = kind, val


class PyConst:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


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


class PythonAnalyzer:
    def __init__(self, engine):
        self.e = engine

    def analyze(self, text, cwd, via=None):
        if via is not None:
            self.e.enter(via)
        try:
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, MemoryError):
                return Val.unknown(
                    "output", maybe_empty=True, label="python"
                )  # python would not run it either
            except RecursionError:
                self.e.block("opaque-code-execution", via or "python", note="nesting too deep to analyse")
                return EMPTY_VAL
            scan = _Scan(self.e, text, cwd)
            scan.block(tree.body)
            scan.finish()
            return Val.unknown("download" if scan.network else "output", maybe_empty=True, label="python")
        finally:
            if via is not None:
                self.e.leave()


def _has_break(stmts):
    """A break or return that leaves this loop (not one of an inner loop)."""
    for s in stmts:
        for node in _walk_same_loop(s):
            if isinstance(node, (ast.Break, ast.Return, ast.Raise)):
                return True
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func) if hasattr(ast, "unparse") else ""
                if name in ("sys.exit", "exit", "quit", "os._exit"):
                    return True
    return False


def _walk_same_loop(node):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(
            child,
            (
                ast.For,
                ast.While,
                ast.AsyncFor,
                ast.FunctionDef,
                ast.AsyncFunctionDef,
                ast.Lambda,
                ast.ClassDef,
            ),
        ):
            continue
        yield from _walk_same_loop(child)


def _truthy_const(node):
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.Name) and node.id == "True":
        return True
    return False


def _to_str(raw):
    return raw.decode("utf-8", "surrogateescape") if isinstance(raw, (bytes, bytearray)) else raw


class _Scan:
    def __init__(self, engine, src, cwd):
        self.e = engine
        self.src = src
        self.cwd = cwd
        self.scopes = [{}]
        self.star_modules = set()
        self.loop_depth = 0
        self.endless = 0
        self.func_stack = []
        self.forking_funcs = set()
        self.recursive_funcs = set()
        self.network = False
        self.vfs = {}
        self._lines = None
        self.home = engine.paths.home
        self.workspace = engine.paths.workspace

    # ------------------------------------------------------------ helpers

    def raw(self, node):
        """The source text of node, for reasons (ast.get_source_segment re-splits the whole source
        on every call, which is quadratic on long code)."""
        if self._lines is None:
            self._lines = self.src.splitlines(keepends=True)
        try:
            first, last = node.lineno - 1, node.end_lineno - 1
            if first == last:
                seg = self._lines[first].encode()[node.col_offset : node.end_col_offset].decode()
            else:
                seg = (
                    self._lines[first].encode()[node.col_offset :].decode()
                    + "".join(self._lines[first + 1 : last])
                    + self._lines[last].encode()[: node.end_col_offset].decode()
                )
        except (AttributeError, IndexError, TypeError, UnicodeDecodeError):
            seg = None
        return seg or "python code"

    def lookup(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in _BUILTINS:
            return PyRef(name)
        for mod in self.star_modules:
            return PyRef(mod + "." + name)
        return None

    def bind(self, target, value):
        if isinstance(target, ast.Name):
            self.scopes[-1][target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.items if isinstance(value, PyList) and value.items is not None else None
            for i, t in enumerate(target.elts):
                if items is not None and i < len(items) and not isinstance(t, ast.Starred):
                    self.bind(t, items[i])
                elif isinstance(value, PyList) and value.elem is not None and not isinstance(t, ast.Starred):
                    self.bind(t, None)
                else:
                    self.bind(t.value if isinstance(t, ast.Starred) else t, None)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, None)
        else:
            self.ev(target)

    def val(self, v, origin="python"):
        """A value as a string Val (paths, entries and files by their path)."""
        if isinstance(v, Val):
            return v
        if isinstance(v, PyPath):
            return v.val
        if isinstance(v, PyObj) and isinstance(v.val, Val):
            return v.val
        if isinstance(v, PyConst) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
            return Val.of(str(v.value))
        return Val((Unknown(origin),))

    def element(self, v):
        if isinstance(v, PyList):
            if v.items is None:
                return v.elem
            vals = [x for x in v.items if isinstance(x, Val)]
            if len(v.items) == 1:
                return v.items[0]
            if v.items and len(vals) == len(v.items) and len(vals) <= 16:
                return Val((Unknown("loop", candidates=vals),))
            if v.items and all(isinstance(x, PyList) for x in v.items):
                return v.items[0]
            return None
        if isinstance(v, Val):
            return Val((Unknown("python"),))
        if isinstance(v, PyObj) and v.kind == "download":
            return v
        return None

    def absolute(self, v):
        t = v.known()
        if t is not None and not t.startswith("/") and self.cwd:
            return Val.of(posixpath.normpath(self.cwd + "/" + t))
        return v

    def env_var(self, name, default=None):
        if name == "HOME":
            return Val.of(self.home)
        if name == "PWD":
            return Val.of(self.cwd) if self.cwd else Val.unknown("var")
        if name in ("TMPDIR", "TMP", "TEMP"):
            return Val((self.workspace, Unknown("tmp", subpath=True)))
        if default is not None:
            return Val((Unknown("var", candidates=[default, Val.unknown("var", label=name)], label=name),))
        return Val((Unknown("var", maybe_empty=True, label=name),))

    def tmp(self):
        return Val((self.workspace, Unknown("tmp", subpath=True)))

    # ------------------------------------------------------------ statements

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        self.e.tick()
        t = type(s)
        if t is ast.Import:
            for a in s.names:
                self._note_import(a.name)
                if a.asname:
                    self.scopes[-1][a.asname] = PyRef(a.name)
                else:
                    top = a.name.split(".")[0]
                    self.scopes[-1][top] = PyRef(top)
        elif t is ast.ImportFrom:
            mod = s.module or ""
            self._note_import(mod)
            for a in s.names:
                if a.name == "*":
                    self.star_modules.add(mod)
                    continue
                self._note_import(mod + "." + a.name)
                self.scopes[-1][a.asname or a.name] = PyRef(mod + "." + a.name)
        elif t is ast.Assign:
            v = self.ev(s.value)
            for target in s.targets:
                self.bind(target, v)
        elif t is ast.AnnAssign:
            if s.value is not None:
                self.bind(s.target, self.ev(s.value))
        elif t is ast.AugAssign:
            cur = self.ev(s.target) if isinstance(s.target, ast.Name) else None
            v = self.ev(s.value)
            if isinstance(s.op, ast.Add) and isinstance(cur, Val) and isinstance(v, Val):
                self.bind(s.target, cur + v)
            else:
                self.bind(s.target, None)
        elif t is ast.Expr:
            self.ev(s.value)
        elif t in (ast.For, ast.AsyncFor):
            it = self.ev(s.iter)
            self.bind(s.target, self.element(it))
            endless = isinstance(it, PyList) and it.infinite and not _has_break(s.body)
            self._loop(s.body, endless)
            self.block(s.orelse)
        elif t is ast.While:
            self.ev(s.test)
            endless = _truthy_const(s.test) and not _has_break(s.body)
            self._loop(s.body, endless)
            self.block(s.orelse)
        elif t is ast.If:
            self.ev(s.test)
            self.block(s.body)
            self.block(s.orelse)
        elif t in (ast.With, ast.AsyncWith):
            for item in s.items:
                v = self.ev(item.context_expr)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, self._enter(v))
            self.block(s.body)
        elif t is ast.Try or type(s).__name__ == "TryStar":
            self.block(s.body)
            for h in s.handlers:
                self.block(h.body)
            self.block(s.orelse)
            self.block(s.finalbody)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            for d in s.decorator_list:
                self.ev(d)
            self.scopes[-1][s.name] = PyRef("<func>." + s.name)
            scope = {}
            for a in s.args.posonlyargs + s.args.args + s.args.kwonlyargs:
                scope[a.arg] = Val((Unknown("param", label=a.arg),))
            self.scopes.append(scope)
            self.func_stack.append(s.name)
            saved = (self.loop_depth, self.endless)
            self.loop_depth, self.endless = 0, 0
            try:
                self.block(s.body)
            finally:
                self.loop_depth, self.endless = saved
                self.func_stack.pop()
                self.scopes.pop()
        elif t is ast.ClassDef:
            for d in s.decorator_list:
                self.ev(d)
            self.scopes.append({})
            try:
                self.block(s.body)
            finally:
                self.scopes.pop()
        elif t is ast.Match:
            self.ev(s.subject)
            for case in s.cases:
                self.block(case.body)
        else:
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self.ev(child)
                elif isinstance(child, ast.stmt):
                    self.stmt(child)

    def _loop(self, body, endless):
        self.loop_depth += 1
        self.endless += endless
        try:
            self.block(body)
        finally:
            self.loop_depth -= 1
            self.endless -= endless

    def _note_import(self, name):
        if name.startswith(NETWORK_PREFIXES):
            self.network = True

    def _enter(self, v):
        if isinstance(v, PyObj) and v.kind == "tmpdir":
            return v.val
        return v

    def finish(self):
        both = self.forking_funcs & self.recursive_funcs
        if both:
            self.e.block("fork-bomb", "def %s(...)" % sorted(both)[0], note="a recursive function that forks")

    # ------------------------------------------------------------ expressions

    def ev(self, node):
        t = type(node)
        if t is ast.Constant:
            v = node.value
            if isinstance(v, str):
                return Val.of(v)
            if isinstance(v, (bytes, bytearray)):
                return Val.of(_to_str(v))
            return PyConst(v)
        if t is ast.Name:
            return self.lookup(node.id)
        if t is ast.UnaryOp and isinstance(node.op, ast.USub):
            operand = self.ev(node.operand)
            if isinstance(operand, PyConst) and type(operand.value) in (int, float):
                return PyConst(-operand.value)
            return None  # as any other expression the scan does not compute
        if t is ast.Attribute:
            return self.attribute(self.ev(node.value), node.attr)
        if t is ast.Call:
            return self.call(node)
        if t is ast.JoinedStr:
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                else:
                    inner = self.ev(v.value)
                    for spec in (v.format_spec,) if v.format_spec is not None else ():
                        self.ev(spec)
                    parts.extend(self.val(inner).parts)
            return Val(parts)
        if t is ast.BinOp:
            a, b = self.ev(node.left), self.ev(node.right)
            op = type(node.op)
            if op is ast.Add:
                if isinstance(a, Val) and isinstance(b, Val):
                    return a + b
                if (
                    isinstance(a, PyList)
                    and isinstance(b, PyList)
                    and a.items is not None
                    and b.items is not None
                ):
                    return PyList(a.items + b.items)
            if op is ast.Div and isinstance(a, PyPath):
                return PyPath(_path_join([a.val, self.val(b)]))
            if op is ast.Mod and isinstance(a, Val) and a.known() is not None:
                args = b.items if isinstance(b, PyList) and b.items is not None else [b]
                return _percent_format(a.known(), [self.val(x) for x in args])
            if (
                op is ast.Mult
                and isinstance(a, Val)
                and isinstance(b, PyConst)
                and isinstance(b.value, int)
                and a.known() is not None
            ):
                return Val.of(a.known() * max(0, min(b.value, 64)))
            return None
        if t is ast.Subscript:
            base = self.ev(node.value)
            key = self.ev(node.slice)
            if (
                isinstance(base, PyRef)
                and base.q in ("os.environ", "posix.environ")
                and isinstance(key, Val)
                and key.known()
            ):
                return self.env_var(key.known())
            if isinstance(node.slice, ast.Slice) and isinstance(base, Val) and base.known() is not None:
                lo = self._const_int(node.slice.lower)
                hi = self._const_int(node.slice.upper)
                step = self._const_int(node.slice.step)
                try:
                    return Val.of(base.known()[lo:hi:step])
                except (TypeError, ValueError):
                    return None
            if (
                isinstance(base, PyList)
                and base.items is not None
                and isinstance(key, PyConst)
                and isinstance(key.value, int)
            ):
                try:
                    return base.items[key.value]
                except IndexError:
                    return None
            if isinstance(base, PyList):
                return self.element(base)
            if (
                isinstance(base, Val)
                and isinstance(key, PyConst)
                and isinstance(key.value, int)
                and base.known() is not None
            ):
                try:
                    return Val.of(base.known()[key.value])
                except IndexError:
                    return None
            return None
        if t is ast.Slice:
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.ev(part)
            return None
        if t in (ast.List, ast.Tuple, ast.Set):
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    inner = self.ev(e.value)
                    if isinstance(inner, PyList) and inner.items is not None:
                        items.extend(inner.items)
                    else:
                        items.append(None)
                else:
                    items.append(self.ev(e))
            return PyList(items)
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp) and len(node.generators) == 1:
            unrolled = self._unroll(node)
            if unrolled is not None:
                return unrolled
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            self.scopes.append({})
            try:
                for gen in node.generators:
                    it = self.ev(gen.iter)
                    self.bind(gen.target, self.element(it))
                    for cond in gen.ifs:
                        self.ev(cond)
                self.loop_depth += 1
                try:
                    if t is ast.DictComp:
                        self.ev(node.key)
                        elem = self.ev(node.value)
                    else:
                        elem = self.ev(node.elt)
                finally:
                    self.loop_depth -= 1
            finally:
                self.scopes.pop()
            return PyList(elem=elem)
        if t is ast.IfExp:
            self.ev(node.test)
            a, b = self.ev(node.body), self.ev(node.orelse)
            if isinstance(a, Val) and isinstance(b, Val):
                return Val((Unknown("python", candidates=[a, b]),))
            return a if a is not None else b
        if t is ast.BoolOp:
            vals = [self.ev(v) for v in node.values]
            known = [v for v in vals if isinstance(v, Val)]
            if len(known) > 1:
                return Val((Unknown("python", candidates=known),))
            return known[0] if known else (vals[-1] if vals else None)
        if t is ast.NamedExpr:
            v = self.ev(node.value)
            self.bind(node.target, v)
            return v
        if t is ast.Lambda:
            self.scopes.append({a.arg: Val((Unknown("param"),)) for a in node.args.args})
            try:
                self.ev(node.body)
            finally:
                self.scopes.pop()
            return None
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.ev(child)
            elif isinstance(child, ast.comprehension):
                self.ev(child.iter)
        return None

    def _unroll(self, node):
        """`''.join(chr(c) for c in [114, 109, ...])`: a comprehension over a short known list is
        evaluated element by element, so that the text it builds is known."""
        gen = node.generators[0]
        it = self.ev(gen.iter)
        if not isinstance(it, PyList) or it.items is None or len(it.items) > 256:
            return None
        items = []
        self.scopes.append({})
        self.loop_depth += 1
        try:
            for item in it.items:
                self.bind(gen.target, item)
                items.append(self.ev(node.elt))
        finally:
            self.loop_depth -= 1
            self.scopes.pop()
        return PyList(items)

    def _const_int(self, node):
        if node is None:
            return None
        v = self.ev(node)
        if isinstance(v, PyConst) and isinstance(v.value, int):
            return v.value
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
        ):
            return -node.operand.value
        return None

    def attribute(self, base, attr):
        if isinstance(base, PyRef):
            q = base.q + "." + attr if base.q else attr
            return PyRef(_normalize(q))
        if isinstance(base, PyPath):
            if attr == "parent":
                t = base.val.known()
                return PyPath(
                    Val.of(posixpath.dirname(t.rstrip("/")) or "/") if t else Val((Unknown("python"),))
                )
            if attr in ("name", "stem", "suffix"):
                return Val((Unknown("python"),))
            return PyMethod(base, attr)
        if isinstance(base, Val):
            return PyMethod(base, attr)
        if isinstance(base, PyObj):
            if base.kind == "download":
                return base
            if attr in ("name", "path") and isinstance(base.val, Val):
                return base.val
            return PyMethod(base, attr)
        return None

    # ------------------------------------------------------------ calls

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

    def decode_call(self, q, args, kw):
        """base64/hex/rot13/compression decoders: the decoded text when the input is known."""
        decoders = {
            "base64.b64decode": lambda b: base64.b64decode(b + b"=" * (-len(b) % 4)),
            "base64.standard_b64decode": lambda b: base64.standard_b64decode(b + b"=" * (-len(b) % 4)),
            "base64.urlsafe_b64decode": lambda b: base64.urlsafe_b64decode(b + b"=" * (-len(b) % 4)),
            "base64.decodebytes": base64.decodebytes,
            "base64.b32decode": base64.b32decode,
            "base64.b16decode": lambda b: base64.b16decode(b, casefold=True),
            "base64.b85decode": base64.b85decode,
            "base64.a85decode": base64.a85decode,
            "binascii.unhexlify": binascii.unhexlify,
            "binascii.a2b_hex": binascii.a2b_hex,
            "binascii.a2b_base64": binascii.a2b_base64,
            "bytes.fromhex": lambda b: bytes.fromhex(b.decode("latin-1")),
            "bytearray.fromhex": lambda b: bytes.fromhex(b.decode("latin-1")),
            "zlib.decompress": lambda b: __import__("zlib").decompress(b),
            "gzip.decompress": lambda b: __import__("gzip").decompress(b),
            "bz2.decompress": lambda b: __import__("bz2").decompress(b),
            "lzma.decompress": lambda b: __import__("lzma").decompress(b),
        }
        if q == "codecs.decode" or q == "codecs.encode":
            data = args[0] if args else None
            enc = self.arg(args, kw, 1, "encoding")
            enc_t = enc.known().lower().replace("-", "_") if isinstance(enc, Val) and enc.known() else None
            if not isinstance(data, Val) or data.known() is None or enc_t is None:
                return Val((Unknown("decode"),)) if q == "codecs.decode" else None
            text = data.known()
            try:
                if enc_t in ("rot13", "rot_13"):
                    return Val.of(codecs.decode(text, "rot13"))
                if enc_t in (
                    "hex",
                    "hex_codec",
                    "base64",
                    "base64_codec",
                    "zlib",
                    "zlib_codec",
                    "bz2",
                    "bz2_codec",
                ):
                    return Val.of(_to_str(codecs.decode(text.encode("utf-8", "surrogateescape"), enc_t)))
                return data
            except Exception:  # a malformed payload: unknown, like the decoder's output
                return Val((Unknown("decode"),))
        fn = decoders.get(q)
        if fn is None:
            return None
        data = args[0] if args else None
        if not isinstance(data, Val) or data.known() is None:
            if isinstance(data, Val) and any(u.origin == "download" for u in data.unknowns()):
                return Val((Unknown("download", maybe_empty=True),))
            return Val((Unknown("decode"),))
        try:
            return Val.of(_to_str(fn(data.known().encode("utf-8", "surrogateescape"))))
        except Exception:  # malformed input: the result cannot be known
            return Val((Unknown("decode"),))

    def method(self, m, args, kw, raw):
        obj, name = m.obj, m.name
        e = self.e
        if isinstance(obj, Val):
            t = obj.known()
            if name in (
                "decode",
                "encode",
                "strip",
                "lstrip",
                "rstrip",
                "lower",
                "upper",
                "title",
                "capitalize",
                "casefold",
                "swapcase",
            ):
                if t is None or name in ("decode", "encode"):
                    return obj
                fn = getattr(str, name)
                a = [x.known() for x in args if isinstance(x, Val)]
                try:
                    return Val.of(fn(t, *a))
                except TypeError:
                    return obj
            if name == "join" and t is not None and args:
                seq = args[0]
                if isinstance(seq, PyList) and seq.items is not None:
                    return Val(_interleave([self.val(x) for x in seq.items], t))
                if isinstance(seq, Val):
                    st = seq.known()
                    return Val.of(t.join(st)) if st is not None else seq
                return Val((Unknown("python"),))
            if name == "replace" and t is not None and len(args) >= 2:
                a, b = args[0], args[1]
                if (
                    isinstance(a, Val)
                    and isinstance(b, Val)
                    and a.known() is not None
                    and b.known() is not None
                ):
                    return Val.of(t.replace(a.known(), b.known()))
                return Val((Unknown("python"),))
            if name == "format" and t is not None:
                return _brace_format(t, [self.val(x) for x in args], {k: self.val(v) for k, v in kw.items()})
            if name in ("split", "rsplit") and t is not None:
                sep = args[0].known() if args and isinstance(args[0], Val) else None
                return PyList([Val.of(x) for x in (t.split(sep) if sep else t.split())])
            if name == "splitlines" and t is not None:
                return PyList([Val.of(x) for x in t.splitlines()])
            return None
        if isinstance(obj, PyPath):
            p = self.absolute(obj.val)
            if name in ("unlink", "rmdir"):
                e.check_delete(p, self.cwd, self.loop_depth > 0, False, raw)
            elif name in ("chmod", "lchmod", "chown"):
                e.check_perm(p, self.cwd, self.loop_depth > 0, raw)
            elif name in ("write_text", "write_bytes", "touch"):
                e.check_write(p, self.cwd, raw)
                if args and isinstance(args[0], Val):
                    self._record(p, args[0])
            elif name == "open":
                mode = self.arg(args, kw, 0, "mode")
                mt = mode.known() if isinstance(mode, Val) else "r"
                if mt is None or any(c in mt for c in "wax+"):
                    e.check_write(p, self.cwd, raw)
                    return PyObj("file", p)
                return PyObj("rfile", p)
            elif name in ("rename", "replace"):
                e.check_move(p, self.cwd, raw)
                if args:
                    e.check_write(self.absolute(self.val(args[0])), self.cwd, raw)
            elif name == "joinpath":
                return PyPath(_path_join([obj.val] + [self.val(a) for a in args]))
            elif name in ("resolve", "absolute", "expanduser"):
                v = obj.val
                t = v.known()
                if name == "expanduser" and t is not None and (t == "~" or t.startswith("~/")):
                    v = Val.of(self.home + t[1:])
                return PyPath(self.absolute(v))
            elif name in ("iterdir", "glob", "rglob"):
                return PyList(elem=PyPath(obj.val + Val(("/", Unknown("found")))))
            elif name in ("with_name", "with_suffix", "with_stem"):
                t = obj.val.known()
                return PyPath(
                    Val((posixpath.dirname(t) + "/", Unknown("python"))) if t else Val((Unknown("python"),))
                )
            elif name in ("read_text", "read_bytes"):
                return self._read(p)
            return None
        if isinstance(obj, PyObj):
            if obj.kind == "file" and name in ("write", "writelines") and args:
                data = args[0]
                if isinstance(data, PyList) and data.items is not None:
                    data = Val(_interleave([self.val(x) for x in data.items], ""))
                if isinstance(data, Val) and isinstance(obj.val, Val):
                    self._record(obj.val, data, append=True)
            elif obj.kind == "rfile" and name in ("read", "readlines"):
                return self._read(obj.val) if isinstance(obj.val, Val) else None
            elif obj.kind == "process" and name == "start":
                self._spawn_check("multiprocessing.Process", raw)
            elif obj.kind == "entry" and name in ("is_dir", "is_file", "stat", "is_symlink"):
                return None
            return None
        return None

    # ------------------------------------------------------------ rules

    def _spawn_check(self, q, raw):
        if self.endless and q in _SPAWNERS:
            self.e.block("fork-bomb", raw, note="new processes in an endless loop")

    def _shell(self, cmd, raw, via):
        return self.e.shell.run_shell_string_from(cmd, self.cwd, via, self.vfs)

    def _argv(self, argv, raw, via, stdin=EMPTY_VAL):
        if not argv:
            return None
        return self.e.shell.run_argv_from(argv, self.cwd, raw, via, self.vfs, stdin)

    def _python(self, code, raw, q):
        if isinstance(code, PyObj) and code.kind == "download":
            code = Val((Unknown("download", maybe_empty=True),))
        if not isinstance(code, Val):
            return None
        if any(u.origin == "download" for u in code.unknowns()):
            self.e.block("download-to-shell", raw, note="downloaded code is run by python %s()" % q)
        text = code.known()
        if text is None:
            if not code.has_known_text():
                if code.is_dynamic():
                    self.e.block(
                        "opaque-code-execution", raw, note="python %s() of code the gate cannot read" % q
                    )
                return None
            text = "".join(p if isinstance(p, str) else "__hookbox_unknown__" for p in code.parts)
        self.e.python.analyze(text, self.cwd, via="python %s()" % q)
        return None

    def _record(self, path, data, append=False):
        t = path.known()
        if not t:
            return
        key = posixpath.normpath(t if t.startswith("/") else (self.cwd or "") + "/" + t)
        if append and key in self.vfs:
            self.vfs[key] = self.vfs[key] + data
        else:
            self.vfs[key] = data

    def _read(self, path):
        t = path.known() if isinstance(path, Val) else None
        if not t:
            return Val((Unknown("file", maybe_empty=True),))
        key = posixpath.normpath(t if t.startswith("/") else (self.cwd or "") + "/" + t)
        if key in self.vfs:
            return self.vfs[key]
        data = self.e.read_workspace_file(key)
        return Val.of(data) if data is not None else Val((Unknown("file", maybe_empty=True),))


def _normalize(q):
    for old, new in _ALIASES.items():
        if q == old:
            return new
        if q.startswith(old + "."):
            rest = q[len(old) + 1 :]
            return new + "." + rest if new else rest
    if q.startswith("<func>."):
        return q
    return q


def _interleave(vals, sep):
    parts = []
    for i, v in enumerate(vals):
        if i and sep:
            parts.append(sep)
        parts.extend(v.parts)
    return parts


def _path_join(vals):
    result = vals[0]
    for v in vals[1:]:
        t = v.known()
        first = v.parts[0] if v.parts else ""
        if (t is not None and t.startswith("/")) or (isinstance(first, str) and first.startswith("/")):
            result = v
        else:
            rt = result.parts[-1] if result.parts else ""
            sep = "" if isinstance(rt, str) and rt.endswith("/") else "/"
            result = result + Val.of(sep) + v if result.parts else v
    return result


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


def _percent_format(fmt, args):
    out, idx, pos = [], 0, 0
    for m in re.finditer(r"%(?:\([^)]*\))?[-+ #0]*\d*(?:\.\d+)?([sdirfxXoc%])", fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        if m.group(1) == "%":
            out.append("%")
            continue
        out.extend((args[idx] if idx < len(args) else Val((Unknown("python"),))).parts)
        idx += 1
    out.append(fmt[pos:])
    return Val(out)


def _brace_format(fmt, args, kwargs):
    out, idx, pos = [], 0, 0
    for m in re.finditer(r"\{\{|\}\}|\{([^{}!:]*)(?:![rsa])?(?::[^{}]*)?\}", fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            out.append(tok[0])
            continue
        key = m.group(1)
        if key == "":
            v = args[idx] if idx < len(args) else None
            idx += 1
        elif key.isdigit():
            v = args[int(key)] if int(key) < len(args) else None
        else:
            v = kwargs.get(key)
        out.extend((v or Val((Unknown("python"),))).parts)
    out.append(fmt[pos:])
    return Val(out)
