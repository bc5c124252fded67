"""The python scan's helpers (a mixin of _Scan in pyscan.py): the source text of a node, names and
scopes (lookup, bind), a value as a string Val or as the element of a list, paths made absolute,
environment variables and the temporary directory.
"""

import ast
import posixpath

from .pytables import _BUILTINS
from .pyvalues import PyConst, PyList, PyObj, PyPath, PyRef
from .values import Unknown, Val


class HelperScan:
    """Helpers shared by the other mixins; the state they use is set up by _Scan.__init__."""

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
