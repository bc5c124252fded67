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

The scan is _Scan, composed of one mixin per concern: pyscan_helpers (names, scopes, values as
strings), pyscan_statements, pyscan_expressions, pyscan_calls (known functions), pyscan_methods
(decoders and methods) and pyscan_rules (hand-offs to the shell and python analyses, the files
written and read); pytables holds the tables of known names, pyvalues the values besides strings.
"""

import ast

from .pyscan_calls import CallScan
from .pyscan_expressions import ExpressionScan
from .pyscan_helpers import HelperScan
from .pyscan_methods import MethodScan
from .pyscan_rules import RuleScan
from .pyscan_statements import StatementScan
from .values import EMPTY_VAL, Val


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


class _Scan(HelperScan, StatementScan, ExpressionScan, CallScan, MethodScan, RuleScan):
    """One scan of one piece of python code: the state below, and the mixins' methods."""

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
