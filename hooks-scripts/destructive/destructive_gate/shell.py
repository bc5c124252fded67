"""Walks a parsed shell script the way bash would run it, and applies the rules to every command.

The walk is a small abstract interpreter: it keeps variables, the current directory, functions
and files written earlier in the script, evaluates what it can (echo, printf, base64 -d, xxd -r,
rev, tr, gunzip, cat of a known file) and follows the output of a pipeline into the next command.
So `echo cm0gLXJmIC8= | base64 -d | sh` is seen as `sh` running `rm -rf /`, and
`X=/; rm -rf $X` as `rm -rf /`. Wrappers (env, sudo, nohup, timeout, xargs, find -exec ...) are
peeled, and nested interpreters (sh -c, eval, source, python -c, perl -e ...) are analysed in turn.
Whatever cannot be known stays an `Unknown` and the rules decide what to do with it.

ShellAnalyzer is composed of mixins, one concern each: WordExpansion (shwords.py), CommandDispatch
(shdispatch.py), ForkBombChecks (shforks.py) and the command handlers (commands/); this module
holds the entry points, the walk of lists, pipelines and compound commands, and redirections.
"""

import re

from . import shparse
from .commands import CommandHandlers
from .shdispatch import CommandDispatch
from .shellutil import Ctx, State, concat_vals, downloaded, output_of
from .shforks import ForkBombChecks
from .shwords import WordExpansion
from .values import EMPTY_VAL, Val


class ShellAnalyzer(WordExpansion, CommandDispatch, ForkBombChecks, CommandHandlers):
    """Walks a script: lists, pipelines, compound commands, expansion, dispatch to handlers."""

    def __init__(self, engine):
        self.e = engine
        self.paths = engine.paths
        self._uid = 0

    # ------------------------------------------------------------ entry points

    def analyze_top(self, code, cwd, shell="bash"):
        st = State(cwd)
        st.argv0 = Val.of(shell)  # hookbox runs `bash -c CODE`: $0 is the shell's name
        self.run_text(code, st, via=None)

    def run_text(self, text, st, via):
        if via is not None:
            self.e.enter(via)
        try:
            try:
                node = shparse.parse(text)
            except (shparse.TooDeep, RecursionError):
                self.e.block("opaque-code-execution", via or "script", note="nesting too deep to analyse")
                return EMPTY_VAL
            out = self.run_list(node, st, EMPTY_VAL)
            self._analyze_uncalled_functions(st)
            if via is None:
                self._run_traps()
            return out
        finally:
            if via is not None:
                self.e.leave()

    def run_argv_from(self, argv, cwd, raw, via, vfs=None, stdin=EMPTY_VAL):
        """An argv list from another language (python's subprocess.run([...], input=...))."""
        self.e.enter(via)
        try:
            st = State(cwd, vfs)
            return self.dispatch(argv, st, Ctx(stdin, False, False, raw))
        finally:
            self.e.leave()

    def run_shell_string_from(self, val, cwd, via, vfs=None):
        """A shell command string from another language (os.system, perl's system)."""
        st = State(cwd, vfs)
        return self.run_code("sh", val, st, Ctx(EMPTY_VAL, False, False, via), [], Val.of("sh"), via)

    # ------------------------------------------------------------ tree walk

    def run_list(self, node, st, stdin):
        outs = []
        for ao, bg in node.items:
            target = st.copy() if bg else st
            for pl in ao.pipelines:
                outs.append(self.run_pipeline(pl, target, stdin, bg))
        return concat_vals(outs)

    def run_pipeline(self, pl, st, stdin, bg):
        cmds = pl.cmds
        if len(cmds) == 1:
            return self.run_command(cmds[0], st, stdin, bg, False)
        data = stdin
        for cmd in cmds:
            # Every element of a pipeline runs in a subshell. Reasons quote the whole pipeline:
            # `curl ... | sh` says more than `sh`.
            data = self.run_command(cmd, st.copy(), data, bg, pl.src)
        return data

    def run_command(self, node, st, stdin, bg, piped):
        """Run one command. piped: False, or the source of the pipeline it is part of (quoted in
        reasons, as `curl ... | sh` says more than `sh`)."""
        self.e.tick()
        if isinstance(node, shparse.Simple):
            return self.run_simple(node, st, stdin, bg, piped)
        if not isinstance(node, shparse.Compound):
            return EMPTY_VAL
        redir_stdin, outs = self.redirections(node.redirs, st, node.src, stdin)
        if redir_stdin is not None:
            stdin = redir_stdin
        kind = node.kind
        out = EMPTY_VAL
        if kind == "func":
            self._check_fork_function(node)
            if node.name:
                st.funcs[node.name] = node
        elif kind == "subshell":
            out = self.run_list(node.lists[0], st.copy(), stdin)
        elif kind in ("while", "until", "arithfor"):
            self._check_fork_loop(node)
            for w in node.words:
                self.expand_word(w, st, stdin)
            out = concat_vals([self.run_list(lst, st, stdin) for lst in node.lists])
        elif kind == "for":
            if node.over_params:
                values = self._positional_fields(st)
            else:
                values = []
                for w in node.words:
                    values.extend(self.expand_word(w, st, stdin))
            if node.name:
                st.vars[node.name] = self._loop_value(values)
            out = concat_vals([self.run_list(lst, st, stdin) for lst in node.lists])
        elif kind in ("cond", "arith", "case", "group", "if"):
            for w in node.words:
                self.expand_word(w, st, stdin)
            out = concat_vals([self.run_list(lst, st, stdin) for lst in node.lists])
        return self.apply_output(outs, out, st)

    def run_simple(self, node, st, stdin, bg, piped):
        fields = []
        for w in node.words:
            fields.extend(self.expand_word(w, st, stdin))
        assigns = [
            (name, append, self.expand_assignment(word, st, stdin)) for name, append, word in node.assigns
        ]
        redir_stdin, outs = self.redirections(node.redirs, st, node.src, stdin)
        if redir_stdin is not None:
            stdin = redir_stdin
        if not fields:
            for name, append, val in assigns:
                self._assign(st, name, val, append)
            return self.apply_output(outs, EMPTY_VAL, st)
        cst = st
        if assigns:
            cst = st.copy()
            for name, append, val in assigns:
                self._assign(cst, name, val, append)
        out = self.dispatch(
            fields, cst, Ctx(stdin, bg, bool(piped), piped if isinstance(piped, str) and piped else node.src)
        )
        if cst is not st:
            # `IFS=, read a b`: the prefix assignments last for the command only, but what the
            # command itself sets (read, cd, declare, functions) stays.
            prefix = {name for name, _, _ in assigns}
            for name, val in cst.vars.items():
                if name not in prefix and st.vars.get(name) is not val:
                    st.vars[name] = val
            st.arrays.update(cst.arrays)
            st.funcs.update(cst.funcs)
            st.cwd = cst.cwd
        return self.apply_output(outs, out, st)

    def _assign(self, st, name, val, append):
        if isinstance(val, list):  # array literal
            st.arrays[name] = val
            st.vars.pop(name, None)
            return
        if append and name in st.vars:
            val = st.vars[name] + val
        st.vars[name] = val
        st.arrays.pop(name, None)

    # ------------------------------------------------------------ redirections

    def redirections(self, redirs, st, raw, stdin):
        new_stdin, outs = None, []
        for r in redirs:
            op = r.op
            if op in ("<<", "<<-"):
                hd = r.heredoc
                if hd is None:
                    continue
                new_stdin = Val.of(hd.body) if hd.quoted else self._expand_single(hd.parts or [], st, stdin)
                continue
            target = self._expand_single(r.target.parts, st, stdin) if r.target is not None else EMPTY_VAL
            if op == "<<<":
                new_stdin = target + Val.of("\n")
            elif op == "<":
                new_stdin = self.read_file(target, st, stdin)
            elif op == "<&":
                new_stdin = output_of("fd")
            elif op == ">&" and re.fullmatch(r"\d*-?", target.known() or "x"):
                # `>&2`, `1>&-`: stdout is duplicated or closed, not written to a file.
                if r.fd in (None, 1):
                    outs.append((None, op, r.fd))
            elif op in (">", ">>", ">|", "&>", "&>>", "<>", ">&"):
                self.e.check_write(target, st.cwd, raw)
                outs.append((target, op, r.fd))
        return new_stdin, outs

    def apply_output(self, outs, out, st):
        """Record what a command writes to files, and what is left on its stdout."""
        for target, op, fd in outs:
            if fd not in (None, 1) and op not in ("&>", "&>>"):
                continue
            if target is not None:
                path = self.paths.absolute(target.known() or "", st.cwd) if target.known() else None
                if path:
                    if op in (">>", "&>>") and path in st.vfs:
                        st.vfs[path] = st.vfs[path] + out
                    else:
                        st.vfs[path] = out
            out = EMPTY_VAL
        return out

    def read_file(self, val, st, stdin):
        if val.content is not None:
            return val.content
        text = val.known()
        if text is None:
            return Val.unknown("file", maybe_empty=True)
        if text in ("-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"):
            return stdin
        if text.startswith(("/dev/tcp/", "/dev/udp/")):
            return downloaded(text)
        path = self.paths.absolute(text, st.cwd)
        if path in st.vfs:
            return st.vfs[path]
        data = self.e.read_workspace_file(path)
        if data is None:
            return Val.unknown("file", maybe_empty=True)
        return Val.of(data)
