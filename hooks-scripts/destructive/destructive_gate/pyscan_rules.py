"""The python scan's effects (a mixin of _Scan in pyscan.py): a new process in an endless loop,
code handed on to the shell analysis (a shell string, an argv) or to the python analysis again
(exec, eval), and the files the code writes and reads, kept so that a script written then run
is analysed.
"""

import posixpath

from .pytables import _SPAWNERS
from .pyvalues import PyObj
from .values import EMPTY_VAL, Unknown, Val


class RuleScan:
    """The checks and hand-offs shared by calls and methods."""

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
