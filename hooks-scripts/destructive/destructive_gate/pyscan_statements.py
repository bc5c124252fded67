"""The python scan's statements (a mixin of _Scan in pyscan.py): imports, assignments, loops (and
whether one is endless), with-blocks, function and class bodies, each run in program order; and
the fork-bomb check of a recursive function that forks, made once the whole code is read.
"""

import ast

from .pytables import NETWORK_PREFIXES
from .pyvalues import PyList, PyObj, PyRef
from .values import Unknown, Val

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


class StatementScan:
    """Runs statements; expressions go to ev (pyscan_expressions.py)."""

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
        elif type(s).__name__ == "Match":  # ast.Match exists from python 3.10 on
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
