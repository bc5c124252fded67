"""The python scan's expressions (a mixin of _Scan in pyscan.py): what an expression evaluates to
when it can be known (constants, names, f-strings, `+`, `%` formatting, `/` on paths, slices and
indexes, lists, comprehensions, which are unrolled over short known lists) and attribute access.
Calls go on to pyscan_calls.py.
"""

import ast
import posixpath
import re

from .pytables import _normalize
from .pyvalues import PyConst, PyList, PyMethod, PyObj, PyPath, PyRef, _path_join, _to_str
from .values import Unknown, Val


class ExpressionScan:
    """ev: the value of an expression, or None when the scan does not compute it."""

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
