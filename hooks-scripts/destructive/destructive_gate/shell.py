"""Walks a parsed shell script the way bash would run it, and applies the rules to every command.

The walk is a small abstract interpreter: it keeps variables, the current directory, functions
and files written earlier in the script, evaluates what it can (echo, printf, base64 -d, xxd -r,
rev, tr, gunzip, cat of a known file) and follows the output of a pipeline into the next command.
So `echo cm0gLXJmIC8= | base64 -d | sh` is seen as `sh` running `rm -rf /`, and
`X=/; rm -rf $X` as `rm -rf /`. Wrappers (env, sudo, nohup, timeout, xargs, find -exec ...) are
peeled, and nested interpreters (sh -c, eval, source, python -c, perl -e ...) are analysed in turn.
Whatever cannot be known stays an `Unknown` and the rules decide what to do with it.
"""

import ast
import posixpath
import re

from . import shparse
from .commands import HANDLERS, CommandHandlers
from .errors import Blocked
from .shellutil import (
    BIN_DIRS,
    PYTHON_RE,
    Ctx,
    State,
    concat_vals,
    downloaded,
    has_glob,
    join_vals,
    output_of,
    render_argv,
    self_val,
    strip_newlines,
)
from .values import EMPTY_VAL, SENT, Unknown, Val

# Environment variables the sandbox always sets (their exact value is unknown but not empty).
# Variables hookbox sets for tool code, and those bash sets itself. Any other variable the script
# does not assign is unset in the sandbox, so it may well expand to nothing.
NONEMPTY_ENV = frozenset(
    {
        "USER",
        "LOGNAME",
        "PATH",
        "LANG",
        "HOSTNAME",
        "UID",
        "EUID",
        "PPID",
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "LINENO",
        "BASHPID",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "$",
        "!",
        "?",
        "-",
        "HOSTTYPE",
        "OSTYPE",
        "MACHTYPE",
        "BASH_VERSION",
        "SHLVL",
    }
)


class ShellAnalyzer(CommandHandlers):
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

    # ------------------------------------------------------------ expansion

    def expand_word(self, word, st, stdin):
        """A word -> its fields after expansion, splitting and (for literal words) brace expansion."""
        lit = word.literal()
        if lit is not None and "{" in lit and all(not p[2] for p in word.parts if p[0] == "lit"):
            words = _brace_expand(lit)
            if len(words) > 1:
                return [Val.of(w) if not has_glob(w) else Val((w,), glob=True) for w in words]
        b = _FieldBuilder(self._ifs(st))
        for p in word.parts:
            kind = p[0]
            if kind == "lit":
                b.literal(p[1], p[2])
            elif kind == "tilde":
                b.quoted_value(self._tilde(p[1]))
            elif kind == "param":
                if p[1] == "@" and p[3] is None and p[2]:
                    b.split_fields(self._positional_fields(st))
                    continue
                if p[1] in ("@", "*") and p[3] is None and not p[2] and not st.params_unknown:
                    # Unquoted $@ / $*: each parameter is split on its own, never joined first.
                    if any(v.known() == "" for v in st.positional):
                        b.value(Val.unknown("param", maybe_empty=True, label=p[1]), False)
                        continue
                    for i, v in enumerate(st.positional):
                        if i:
                            b._break()
                        b.value(v, False)
                    continue
                if p[5] == "@" and p[3] is None and p[2] and p[1] in st.arrays:
                    b.split_fields(st.arrays[p[1]])  # "${arr[@]}": one field per element
                    continue
                b.value(self.param(p, st, stdin), p[2])
            elif kind == "cmd":
                b.value(self.cmdsub(p[1], st), p[2])
            elif kind == "arith":
                for sub in p[1]:
                    self.cmdsub(sub[1], st)
                b.value(_arith_value(p), False)
            elif kind == "proc":
                b.procsub(self.procsub(p[1], p[2], st, stdin))
            elif kind == "array":
                pass
        return b.finish()

    def _expand_single(self, parts, st, stdin):
        """Parts expanded to one string without splitting (assignments, here-docs, redirections)."""
        out = []
        for p in parts:
            kind = p[0]
            if kind == "lit":
                out.append(p[1])
            elif kind == "tilde":
                out.extend(self._tilde(p[1]).parts)
            elif kind == "param":
                out.extend(self.param(p, st, stdin).parts)
            elif kind == "cmd":
                out.extend(self.cmdsub(p[1], st).parts)
            elif kind == "arith":
                for sub in p[1]:
                    self.cmdsub(sub[1], st)
                out.extend(_arith_value(p).parts)
            elif kind == "proc":
                v = self.procsub(p[1], p[2], st, stdin)
                return v
        return Val(out)

    def expand_assignment(self, word, st, stdin):
        if word.parts and word.parts[0][0] == "array":
            items = []
            for w in word.parts[0][1]:
                items.extend(self.expand_word(w, st, stdin))
            return items
        return self._expand_single(word.parts, st, stdin)

    def _tilde(self, user):
        if user == "":
            return Val.of(self.paths.home)
        if user == "root":
            return Val.of("/root")
        if user in ("+",):
            return Val.of("")
        return Val.of("/home/" + user)

    def _ifs(self, st):
        v = st.vars.get("IFS")
        if v is None:
            return " \t\n"
        return v.known() if v.known() is not None else " \t\n"

    def _positional_fields(self, st):
        if st.params_unknown:
            return [Val.unknown("param", label="@")]
        return list(st.positional)

    def _cwd_val(self, st):
        if st.cwd is None:
            return Val.unknown("var", label="PWD")
        if SENT not in st.cwd:
            return Val.of(st.cwd)
        head, _, tail = st.cwd.partition(SENT)
        return Val((head, Unknown("tmp"), tail))

    def lookup(self, name, st, index=None):
        """The value of a parameter; None when it is known to be unset."""
        if name in st.arrays:
            arr = st.arrays[name]
            if index in ("@", "*"):
                return join_vals(arr) if arr else None
            if index is None or index == "0":
                return arr[0] if arr else None
            if index.isdigit():
                i = int(index)
                return arr[i] if i < len(arr) else None
            return Val.unknown("var", maybe_empty=True, label=name)
        if name in st.vars:
            return st.vars[name]
        if name.isdigit():
            i = int(name)
            if i == 0:
                return st.argv0
            if st.params_unknown:
                return Val.unknown("param", label=name)
            return st.positional[i - 1] if i <= len(st.positional) else None
        if name in ("@", "*"):
            if st.params_unknown:
                return Val.unknown("param", label=name)
            return join_vals(st.positional) if st.positional else None
        if name == "#":
            return Val.unknown("param") if st.params_unknown else Val.of(str(len(st.positional)))
        if name == "HOME":
            return Val.of(self.paths.home)
        if name == "PWD":
            return self._cwd_val(st)
        if name == "TMPDIR":
            return Val((self.paths.workspace, Unknown("tmp", subpath=True)))
        if name == "IFS":
            return Val.of(" \t\n")
        if name == "BASH_SOURCE":
            return st.argv0
        if name == "BASH":
            return Val.of("/bin/bash")
        if name in NONEMPTY_ENV:
            return Val.unknown("var", label=name)
        return Val((Unknown("var", maybe_empty=True, label=name),))

    def param(self, p, st, stdin):
        _, name, quoted, op, arg, index = p
        if op == "len" and (name in ("@", "*") or (name in st.arrays and index in ("@", "*"))):
            # ${#@}, ${#*}, ${#arr[@]}: how many, not how long.
            if name in st.arrays:
                return Val.of(str(len(st.arrays[name])))
            return Val.unknown("param") if st.params_unknown else Val.of(str(len(st.positional)))
        if name in ("@", "*") and index is None and op in ("#", "##", "%", "%%", "/", "//", "/#", "/%"):
            return self._each_positional(p, st, stdin)
        if name == "*" and quoted and op is None and index is None and not st.params_unknown:
            # "$*" joins the parameters with the first character of IFS (none when IFS is empty).
            if not st.positional:
                return EMPTY_VAL
            return join_vals(st.positional, self._ifs(st)[:1])
        if op == "len":
            v = self.lookup(name, st)
            t = v.known() if v is not None else ""
            return Val.of(str(len(t))) if t is not None else Val.unknown("arith")
        if op == "indirect":
            v = self.lookup(name, st, index)
            t = v.known() if v is not None else None
            if t and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\d+", t):
                return self.lookup(t, st) or EMPTY_VAL
            return Val.unknown("var", maybe_empty=True, label="!" + name)
        base = self.lookup(name, st, index)
        if op is None:
            return base if base is not None else EMPTY_VAL
        if op == "bad" or op == "@":
            return Val.unknown("var", maybe_empty=True, label=name)
        maybe_unset = (
            base is not None
            and len(base.parts) == 1
            and isinstance(base.parts[0], Unknown)
            and base.parts[0].maybe_empty
        )
        if op in (":-", "-", ":=", "="):
            word = self._expand_single(arg.parts, st, stdin) if arg is not None else EMPTY_VAL
            empty = base is None or (op in (":-", ":=") and base.known() == "")
            if empty:
                result = word
            elif maybe_unset:
                u = base.parts[0]
                result = Val(
                    (
                        Unknown(
                            u.origin,
                            candidates=[word, Val((Unknown(u.origin, label=u.label),))],
                            label=u.label,
                        ),
                    )
                )
            else:
                result = base
            if op in (":=", "=") and (empty or maybe_unset):
                st.vars[name] = result
            return result
        if op in (":+", "+"):
            word = self._expand_single(arg.parts, st, stdin) if arg is not None else EMPTY_VAL
            if base is None or (op == ":+" and base.known() == ""):
                return EMPTY_VAL
            if maybe_unset:
                return Val((Unknown("var", candidates=[word, EMPTY_VAL]),))
            return word
        if op in (":?", "?"):
            return base if base is not None else EMPTY_VAL
        text = base.known() if base is not None else ""
        if text is None:
            return Val.unknown("var", maybe_empty=True, label=name)
        if op == ":":
            m = re.fullmatch(r"\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?", arg or "")
            if not m:
                return Val.unknown("var", maybe_empty=True, label=name)
            off = int(m.group(1))
            off = max(0, len(text) + off) if off < 0 else off
            if m.group(2) is None:
                return Val.of(text[off:])
            ln = int(m.group(2))
            return Val.of(text[off : off + ln] if ln >= 0 else text[off:ln])
        if op in ("^^", "^", ",,", ","):
            if op == "^^":
                return Val.of(text.upper())
            if op == ",,":
                return Val.of(text.lower())
            return Val.of((text[:1].upper() if op == "^" else text[:1].lower()) + text[1:])
        if op in ("#", "##", "%", "%%"):
            pat = self._expand_single(arg.parts, st, stdin).known() if arg is not None else ""
            if pat is None:
                return Val.unknown("var", maybe_empty=True, label=name)
            return Val.of(_trim(text, pat, op))
        if op in ("/", "//", "/#", "/%"):
            pat_w, rep_w = arg
            pat = self._expand_single(pat_w.parts, st, stdin).known()
            rep = self._expand_single(rep_w.parts, st, stdin).known() if rep_w is not None else ""
            if pat is None or rep is None:
                return Val.unknown("var", maybe_empty=True, label=name)
            return Val.of(_replace(text, pat, rep, op))
        return Val.unknown("var", maybe_empty=True, label=name)

    def _each_positional(self, p, st, stdin):
        """${@#pat}, ${*/a/b}: the operation applies to each parameter; then they are joined as
        $@ or $* would be. "${@#pat}" is one field per parameter, which a single value cannot
        hold: unknown."""
        _, name, quoted, op, arg, index = p
        if st.params_unknown or (quoted and name == "@") or (not quoted and self._ifs(st) != " \t\n"):
            return Val.unknown("param", maybe_empty=True, label=name)
        results = []
        for value in st.positional:
            scratch = st.copy()
            scratch.vars["_hookbox_each"] = value
            one = self.param(("param", "_hookbox_each", quoted, op, arg, None), scratch, stdin)
            if one.known() is None:
                return Val.unknown("param", maybe_empty=True, label=name)
            results.append(one)
        if not results:
            return EMPTY_VAL
        return join_vals(results, self._ifs(st)[:1] if quoted else " ")

    def cmdsub(self, node, st):
        out = self.run_list(node, st.copy(), EMPTY_VAL)
        return strip_newlines(out)

    def procsub(self, node, direction, st, stdin):
        """`<(cmd)`: the path /dev/fd/63 whose content is cmd's output. `>(cmd)`: cmd reads what
        the outer command writes, approximated by the outer command's own input (tee's case)."""
        if direction == ">":
            self.run_list(node, st.copy(), stdin)
            return Val(("/dev/fd/63",))
        out = self.run_list(node, st.copy(), EMPTY_VAL)
        return Val(("/dev/fd/63",), content=out)

    def _loop_value(self, values):
        # Each item of `for x in $(cmd)` is one word of cmd's output, not code: the loop variable
        # is unknown but not "dynamic" (see values.DYNAMIC_ORIGINS).
        values = [v if v.has_known_text() else Val.unknown("loop") for v in values]
        if not values:
            return EMPTY_VAL
        if len(values) == 1:
            return values[0]
        if len(values) > 16:
            return Val.unknown("loop")
        return Val((Unknown("loop", candidates=values),), glob=any(v.glob for v in values))

    # ------------------------------------------------------------ dispatch

    def dispatch(self, argv, st, ctx):
        self.e.tick()
        rendered = render_argv(argv)
        self.e.check_custom(rendered)
        head = argv[0]
        name = head.known()
        if name is None:
            return self._dispatch_unknown(argv, st, ctx)
        if not name:
            return EMPTY_VAL
        if "/" not in name and name in st.funcs:
            return self.call_function(name, argv, st, ctx)
        base = name
        if "/" in name:
            # A program run by path: a system binary (/bin/rm), possibly through a link or a copy
            # the script made (`ln -s /bin/rm x; ./x -rf /`), or a script file.
            path = self.paths.absolute(name, st.cwd)
            if path is not None:
                path = self.e.resolve_links(path, True)
                path = self.e.binary_copies.get(path, path)
            if path is not None and posixpath.dirname(path) in BIN_DIRS:
                base = posixpath.basename(path)
            else:
                return self.exec_file(head, argv, st, ctx)
        handler = HANDLERS.get(base)
        if handler is None:
            if base.startswith("mkfs") or base.startswith("mke2fs"):
                handler = CommandHandlers.h_mkfs
            elif PYTHON_RE.match(base):
                handler = CommandHandlers.h_python
        if handler is None:
            self.check_device_operands(base, argv, st, ctx)
            return output_of(base)
        return handler(self, argv, st, ctx)

    def _dispatch_unknown(self, argv, st, ctx):
        head = argv[0]
        if any(u.origin == "self" for u in head.unknowns()):
            self._self_exec(ctx, st)
            return output_of("$0")
        concrete = [t for t in head.instantiate() if t and SENT not in t]
        if concrete and len(concrete) == len(head.instantiate()):
            out = EMPTY_VAL
            for t in concrete[:8]:
                out = self.dispatch([Val.of(t)] + argv[1:], st, ctx)
            return out
        if (
            len(head.parts) == 1
            and head.parts[0].maybe_empty
            and not head.parts[0].candidates
            and len(argv) > 1
        ):
            # `$WRAPPER rm -rf /` with WRAPPER unset runs `rm -rf /`.
            self.dispatch(argv[1:], st, ctx)
        # A command name the gate cannot know. When it is computed at run time (a decoder or a
        # program's output) and the arguments would be destructive for rm, refuse: this is how
        # `$(echo cm0= | base64 -d) -rf /` looks when the decoder is beyond the gate. Whatever the
        # name, `-c 'script'` is checked as if the name were a shell.
        hypotheses = [[Val.of("rm")] + argv[1:]] if head.is_dynamic() else []
        if any(a.known() == "-c" for a in argv[1:]):
            hypotheses.append([Val.of("sh")] + argv[1:])
        for hypo in hypotheses:
            try:
                self.dispatch(hypo, st.copy(), Ctx(ctx.stdin, ctx.bg, ctx.piped, ctx.raw))
            except Blocked as b:
                self.e.block(
                    "opaque-code-execution",
                    ctx.raw,
                    note="command name unknown to the gate; as %s it would be %s" % (hypo[0].known(), b.rule),
                )
        return output_of("dynamic")

    def _self_exec(self, ctx, st):
        if ctx.bg or ctx.piped:
            self.e.block("fork-bomb", ctx.raw, note="the script starts copies of itself")

    def call_function(self, name, argv, st, ctx):
        node = st.funcs[name]
        if name in st.active:
            return output_of(name)
        key = id(node)
        count = self.e.calls.get(key, 0)
        self.e.calls[key] = count + 1
        if count >= 8:
            return output_of(name)
        saved = (st.positional, st.params_unknown)
        st.positional, st.params_unknown = list(argv[1:]), False
        st.active.add(name)
        try:
            return self.run_command(node.body, st, ctx.stdin, ctx.bg, ctx.piped)
        finally:
            st.active.discard(name)
            st.positional, st.params_unknown = saved

    def _analyze_uncalled_functions(self, st):
        """A function defined but never called may still be called by code the gate cannot see
        (a trap, a later interaction): check its body with unknown arguments."""
        for name, node in list(st.funcs.items()):
            if id(node) in self.e.calls:
                continue
            self.e.calls[id(node)] = 1
            sub = st.copy()
            sub.params_unknown = True
            sub.active.add(name)
            self.run_command(node.body, sub, EMPTY_VAL, False, False)

    def exec_file(self, head, argv, st, ctx):
        if any(u.origin == "self" for u in head.unknowns()):
            self._self_exec(ctx, st)
        content = self.read_file(head, st, ctx.stdin)
        text = content.known()
        lang = "sh"
        first = (text or "").split("\n", 1)[0]
        if first.startswith("#!"):
            if "python" in first:
                lang = "python"
            elif any(x in first for x in ("perl", "ruby", "node", "php")):
                lang = next(x for x in ("perl", "ruby", "node", "php") if x in first)
        return self.run_code(lang, content, st, ctx, argv[1:], self_val(head), "exec %s" % head.render())

    def run_code(self, lang, code, st, ctx, positional, argv0, via, inplace=False):
        """Analyse code handed to an interpreter. Code the gate cannot read is refused when it
        comes from a download, or from a decoder or command whose output cannot be known."""
        if code is None:
            return output_of(lang)
        if any(u.origin == "download" for u in code.unknowns()):
            self.e.block("download-to-shell", ctx.raw, note="downloaded code is run by %s" % via)
        if not code.has_known_text():
            if code.is_dynamic() and not self._trusted(code):
                self.e.block("opaque-code-execution", ctx.raw, note="%s runs code the gate cannot read" % via)
            return output_of(lang)
        if lang == "python":
            text = code.known()
            if text is None:
                text = "".join(p if isinstance(p, str) else "__hookbox_unknown__" for p in code.parts)
            return self.e.python.analyze(text, st.cwd, via=via)
        if lang != "sh":
            return self.foreign(lang, code, st, ctx, via)
        sub = st if inplace else st.copy()
        text_parts = []
        for p in code.parts:
            if isinstance(p, str):
                text_parts.append(p)
            else:
                # An unknown piece becomes a variable of its own, so that its properties
                # (may it be empty?) survive the round trip through text.
                self._uid += 1
                var = "__hookbox_u%d" % self._uid
                sub.vars[var] = Val((p,))
                text_parts.append("${%s}" % var)
        if not inplace:
            sub.positional, sub.argv0, sub.params_unknown = list(positional), argv0, False
        elif positional:
            sub.positional = list(positional)
        return self.run_text("".join(text_parts), sub, via)

    def _trusted(self, code):
        """Output of the configured environment-setup tools (`eval "$(ssh-agent -s)"`)."""
        trusted = self.e.config.trusted_generators
        return all(u.origin == "output" and u.label in trusted for u in code.unknowns())

    # ------------------------------------------------------------ fork bombs

    def _check_fork_function(self, node):
        """A function that calls itself in a pipeline or in the background multiplies processes:
        `:(){ :|:& };:` and every renamed variant."""
        name = node.name
        if not name or node.body is None:
            return
        for cmd, piped, bg in _walk_simple(node.body):
            if cmd.words and cmd.words[0].literal() == name and (piped or bg):
                self.e.block("fork-bomb", node.src or name, note="function %s starts copies of itself" % name)

    def _check_fork_loop(self, node):
        """An endless loop that starts background jobs: `while true; do sleep 9 & done`."""
        if not _is_endless(node):
            return
        for _cmd, _piped, bg in _walk_simple(node):
            if bg:
                self.e.block("fork-bomb", node.src, note="endless loop starting background processes")


_SPLITTERS = {}


_CONSTANT_ARITH = re.compile(r"^[0-9\s+\-*/%()]*$")


def _arith_value(part):
    """`$(( ))` of constants only (`$((7*3-1))`) is known, as bash computes it; anything with a
    variable, an assignment or a command substitution stays unknown."""
    text = part[3] if len(part) > 3 else None
    if part[1] or text is None or not _CONSTANT_ARITH.match(text) or not text.strip():
        return Val.unknown("arith")
    try:
        value = _eval_int(ast.parse(text.strip(), mode="eval").body, 0)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return Val.unknown("arith")
    return Val.of(str(value))


def _eval_int(node, depth):
    """Integer arithmetic as bash does it (64-bit, division and remainder toward zero)."""
    if depth > 50:
        raise ValueError("too deep")
    if isinstance(node, ast.Constant) and type(node.value) is int:
        # bash reads a leading 0 as octal; python refuses `010`, so only plain decimals get here.
        return _wrap(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval_int(node.operand, depth + 1)
        return _wrap(-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod)):
        left, right = _eval_int(node.left, depth + 1), _eval_int(node.right, depth + 1)
        if isinstance(node.op, ast.Add):
            return _wrap(left + right)
        if isinstance(node.op, ast.Sub):
            return _wrap(left - right)
        if isinstance(node.op, ast.Mult):
            return _wrap(left * right)
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
        return _wrap(quotient if isinstance(node.op, ast.Div) else left - right * quotient)
    raise ValueError("not constant arithmetic")


def _wrap(value):
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _splitter(ifs):
    """The field delimiters of an IFS, as bash reads them: a run of IFS whitespace, or one other IFS
    character with the IFS whitespace around it."""
    rx = _SPLITTERS.get(ifs)
    if rx is None:
        white = "".join(c for c in ifs if c in " \t\n")
        other = "".join(c for c in ifs if c not in " \t\n")
        ws = "[" + re.escape(white) + "]*" if white else ""
        alternatives = []
        if other:
            alternatives.append(ws + "[" + re.escape(other) + "]" + ws)
        if white:
            alternatives.append("[" + re.escape(white) + "]+")
        rx = _SPLITTERS[ifs] = re.compile("|".join(alternatives))
    return rx


class _FieldBuilder:
    """Assembles expanded words into fields the way bash splits them."""

    def __init__(self, ifs):
        self.ifs = ifs
        self.fields = []
        self.cur = []
        self.glob = False
        self.quoted = False
        self.content = None

    def literal(self, text, quoted):
        if quoted:
            self.quoted = True
        elif has_glob(text):
            self.glob = True
        self.cur.append(text)

    def quoted_value(self, val):
        self.cur.extend(val.parts)

    def procsub(self, val):
        self.cur.extend(val.parts)
        self.content = val.content

    def value(self, val, quoted):
        if quoted:
            self.quoted = True
            self.cur.extend(val.parts)
            return
        if val.glob:
            self.glob = True
        if not self.ifs:
            self.cur.extend(val.parts)
            return
        splitter = _splitter(self.ifs)
        for part in val.parts:
            if isinstance(part, Unknown):
                self.cur.append(part)
                continue
            if has_glob(part):
                self.glob = True
            at = 0
            for m in splitter.finditer(part):
                if m.start() > at:
                    self.cur.append(part[at : m.start()])
                # A delimiter with a non-whitespace IFS character (`,` of IFS=', ') ends a field
                # even when it is empty (`a,,b` is three fields); IFS whitespace alone does not.
                self._break(force=bool(m.group(0).strip(" \t\n")))
                at = m.end()
            if at < len(part):
                self.cur.append(part[at:])

    def split_fields(self, vals):
        """ "$@": each positional parameter is a field of its own."""
        self.quoted = True
        for i, v in enumerate(vals):
            if i > 0:
                self._break(force=True)
                self.quoted = True
            self.cur.extend(v.parts)
        if not vals:
            self.quoted = bool(self.cur)

    def _break(self, force=False):
        if self.cur or force:
            self.fields.append(Val(self.cur, self.glob))
        self.cur = []
        # Quotes keep an empty field only in the field they are in: `"a"$v` with v=' ' is one field.
        self.quoted = False

    def finish(self):
        if self.cur or self.quoted:
            self.fields.append(Val(self.cur, self.glob, self.content))
        return self.fields


def _brace_expand(text, limit=64):
    """a{b,c}d -> abd acd (comma lists, nested; ranges are left alone)."""
    depth, start = 0, -1
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : i]
                alts, d, cur = [], 0, []
                for ch in inner:
                    if ch == "," and d == 0:
                        alts.append("".join(cur))
                        cur = []
                        continue
                    d += ch == "{"
                    d -= ch == "}"
                    cur.append(ch)
                alts.append("".join(cur))
                if len(alts) < 2:
                    continue
                out = []
                for alt in alts:
                    out.extend(_brace_expand(text[:start] + alt + text[i + 1 :], limit))
                    if len(out) >= limit:
                        break
                return out[:limit]
    return [text]


def _glob_re(pattern):
    import fnmatch

    return fnmatch.translate(pattern)[4:-3]  # strip (?s: ... )\Z


def _trim(text, pat, op):
    rx = _glob_re(pat)
    if op in ("#", "##"):
        cands = [i for i in range(len(text) + 1) if re.fullmatch(rx, text[:i], re.S)]
        if not cands:
            return text
        i = cands[-1] if op == "##" else cands[0]
        return text[i:]
    cands = [i for i in range(len(text) + 1) if re.fullmatch(rx, text[i:], re.S)]
    if not cands:
        return text
    i = cands[0] if op == "%%" else cands[-1]
    return text[:i]


def _replace(text, pat, rep, op):
    if not pat:
        return text
    rx = _glob_re(pat)
    if op == "/#":
        return re.sub("^(?:" + rx + ")", lambda m: rep, text, count=1, flags=re.S)
    if op == "/%":
        return re.sub("(?:" + rx + ")$", lambda m: rep, text, count=1, flags=re.S)
    return re.sub(rx, lambda m: rep, text, count=0 if op == "//" else 1, flags=re.S)


def _walk_simple(node, piped=False, bg=False):
    """Every simple command under node, with whether it runs in a pipeline or in the background."""
    if isinstance(node, shparse.ListNode):
        for ao, item_bg in node.items:
            for pl in ao.pipelines:
                multi = len(pl.cmds) > 1
                for cmd in pl.cmds:
                    yield from _walk_simple(cmd, piped or multi, bg or item_bg)
    elif isinstance(node, shparse.Simple):
        yield node, piped, bg
        for w in node.words:
            for p in w.parts:
                if p[0] in ("cmd", "proc"):
                    yield from _walk_simple(p[1], piped, bg)
    elif isinstance(node, shparse.Compound):
        for lst in node.lists:
            yield from _walk_simple(lst, piped, bg)
        if node.kind == "func" and isinstance(node.body, (shparse.Compound, shparse.Simple)):
            yield from _walk_simple(node.body, piped, bg)


_TRUE_CONDS = frozenset({"true", ":", "/bin/true", "/usr/bin/true", "[ 1 ]", "test 1", "[[ 1 ]]"})


def _is_endless(node):
    if node.kind == "arithfor":
        return bool(re.match(r"^for\s*\(\(\s*[^;]*;\s*;", node.src))
    cond = node.lists[0] if node.lists else None
    if cond is None or len(cond.items) != 1:
        return False
    ao = cond.items[0][0]
    if len(ao.pipelines) != 1 or len(ao.pipelines[0].cmds) != 1:
        return False
    cmd = ao.pipelines[0].cmds[0]
    if isinstance(cmd, shparse.Compound) and cmd.kind == "arith":
        text = re.sub(r"\s+", "", cmd.src)
        return (node.kind == "while") == bool(re.fullmatch(r"\(\([1-9]\d*\)\)", text))
    if not isinstance(cmd, shparse.Simple):
        return False
    words = [w.literal() for w in cmd.words]
    if any(w is None for w in words):
        return False
    text = " ".join(words)
    if node.kind == "while":
        return text in _TRUE_CONDS
    return text in ("false", "/bin/false", "/usr/bin/false", "[ ]", "! true")
