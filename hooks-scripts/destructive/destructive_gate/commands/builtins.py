"""Shell builtins and harmless commands that change what the script knows: the directory (cd,
pushd), variables (read, declare, unset, set), aliases, traps, and code run in place (eval,
source, exec, command).

A mixin of CommandHandlers (see __init__.py); `self` is the ShellAnalyzer (../shell.py)."""

import posixpath
import re

from ..shellutil import (
    concat_vals,
    join_vals,
    output_of,
    parse_opts,
    texts_of,
)
from ..values import (
    EMPTY_VAL,
    Unknown,
    Val,
    normalize,
)


class BuiltinCommands:
    def h_noop(self, argv, st, ctx):
        return EMPTY_VAL

    def h_ls(self, argv, st, ctx):
        """What `ls` prints, as far as it matters: with no operand, every entry of the current
        directory (so `rm -rf $(ls)` is `rm -rf *`); with -d, the operands themselves."""
        flags, _, ops = parse_opts(
            argv[1:],
            short_with_arg="IwT",
            long_with_arg=("--ignore", "--hide", "--width", "--format", "--sort", "--time-style", "--color"),
        )
        filtered = flags & {"I", "--ignore", "--hide"}
        if not ops and not filtered:
            names = "* .[!.]*" if flags & {"a", "A", "--all", "--almost-all"} else "*"
            return Val((names + "\n",), glob=True)
        if "d" in flags or "--directory" in flags:
            return concat_vals([o + Val.of("\n") for o in ops])
        return output_of("ls")

    def h_ln(self, argv, st, ctx):
        """Symbolic links made by the script are followed later (`ln -s / r && rm -rf r/`)."""
        flags, values, ops = parse_opts(
            argv[1:], short_with_arg="tS", long_with_arg=("--target-directory", "--suffix")
        )
        if not flags & {"s", "--symbolic"} or len(ops) < 1:
            return EMPTY_VAL
        target = ops[0].known()
        link = ops[1].known() if len(ops) > 1 else posixpath.basename(target or "")
        if target and link:
            link_path = self.paths.absolute(link, st.cwd)
            if link_path:
                base = posixpath.dirname(link_path)
                self.e.symlinks[link_path] = normalize(
                    target if target.startswith("/") else base + "/" + target
                )
        return EMPTY_VAL

    def h_mktemp(self, argv, st, ctx):
        flags, values, ops = parse_opts(argv[1:], short_with_arg="p", long_with_arg=("--tmpdir", "--suffix"))
        base = values.get("p") or values.get("--tmpdir")
        if base is not None and base.known():
            return Val((base.known().rstrip("/"), Unknown("tmp", subpath=True)))
        if ops and ops[0].known() and "/" in ops[0].known():
            return Val((posixpath.dirname(ops[0].known()), Unknown("tmp", subpath=True)))
        if ops and ops[0].known() and "p" not in flags and "t" not in flags and "--tmpdir" not in flags:
            # A bare template is created in the current directory.
            return self._cwd_val(st) + Val((Unknown("tmp", subpath=True),))
        return Val((self.paths.workspace, Unknown("tmp", subpath=True)))

    def h_pwd(self, argv, st, ctx):
        return self._cwd_val(st) + Val.of("\n")

    def h_realpath(self, argv, st, ctx):
        _, _, ops = parse_opts(argv[1:])
        if not ops:
            return output_of("realpath")
        v = ops[0]
        t = v.known()
        if t is not None:
            path = self.paths.absolute(t, st.cwd)
            if path is not None:
                return Val.of(path + "\n")
        return v + Val.of("\n")

    def h_dirname(self, argv, st, ctx):
        _, _, ops = parse_opts(argv[1:])
        t = ops[0].known() if ops else None
        if t is None:
            return output_of("dirname")
        stripped = t.rstrip("/")
        if not stripped:
            return Val.of("/\n" if t else ".\n")
        return Val.of((posixpath.dirname(stripped) or ".") + "\n")

    def h_cd(self, argv, st, ctx, push=False):
        _, _, ops = parse_opts(argv[1:])
        old = st.cwd
        if not ops:
            new = self.paths.home
        else:
            t = ops[0].known()
            if t == "-":
                new = st.dirstack[-1] if st.dirstack else None
            else:
                texts = [x for x in ops[0].instantiate() if x]
                new = self.paths.absolute(texts[-1], st.cwd) if texts else st.cwd
        if push:
            st.dirstack.append(old)
        st.cwd = new
        return EMPTY_VAL

    def h_pushd(self, argv, st, ctx):
        return self.h_cd(argv, st, ctx, push=True)

    def h_popd(self, argv, st, ctx):
        st.cwd = st.dirstack.pop() if st.dirstack else None
        return EMPTY_VAL

    def h_read(self, argv, st, ctx):
        flags, values, names = parse_opts(argv[1:], short_with_arg="adinNptu")
        names_t = [n.known() for n in names if n.known()]
        arr = values.get("a")
        if arr is not None and arr.known():
            st.arrays[arr.known()] = [Val.unknown("read")]
        text = ctx.stdin.known()
        if text is not None and names_t:
            line = text.split("\n", 1)[0]
            ifs = self._ifs(st)
            fields = (
                re.split("[" + re.escape(ifs) + "]+", line.strip(ifs), len(names_t) - 1) if ifs else [line]
            )
            for i, n in enumerate(names_t):
                st.vars[n] = Val.of(fields[i] if i < len(fields) else "")
            return EMPTY_VAL
        for n in names_t or ["REPLY"]:
            st.vars[n] = Val((Unknown("read", maybe_empty=True, label=n),))
        return EMPTY_VAL

    def h_mapfile(self, argv, st, ctx):
        _, _, names = parse_opts(argv[1:], short_with_arg="dnOsuCc")
        name = names[-1].known() if names else "MAPFILE"
        if name:
            st.arrays[name] = [Val.unknown("read")]
        return EMPTY_VAL

    def h_declare(self, argv, st, ctx):
        """export/declare/local/readonly/typeset NAME=value: an assignment."""
        for a in argv[1:]:
            first = a.parts[0] if a.parts else ""
            if isinstance(first, str) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*\+?=", first):
                name, _, rest = first.partition("=")
                val = Val((rest,) + a.parts[1:])
                self._assign(st, name.rstrip("+"), val, name.endswith("+"))
        return EMPTY_VAL

    def h_unset(self, argv, st, ctx):
        flags, _, names = parse_opts(argv[1:])
        for n in texts_of(names):
            if not n:
                continue
            if "f" in flags:
                st.funcs.pop(n, None)
            else:
                st.vars[n] = EMPTY_VAL
                st.arrays.pop(n, None)
        return EMPTY_VAL

    def h_set(self, argv, st, ctx):
        args = argv[1:]
        i = 0
        while i < len(args):
            t = args[i].known()
            if t == "--":
                st.positional, st.params_unknown = list(args[i + 1 :]), False
                return EMPTY_VAL
            if t is None or not t.startswith(("-", "+")) or t in ("-", "+"):
                st.positional, st.params_unknown = list(args[i:]), False
                return EMPTY_VAL
            i += 2 if t.endswith("o") else 1  # `set -euo pipefail`: -o takes the next word
        return EMPTY_VAL

    def h_shift(self, argv, st, ctx):
        n = argv[1].known() if len(argv) > 1 else "1"
        n = int(n) if n and n.isdigit() else 1
        st.positional = st.positional[n:]
        return EMPTY_VAL

    def h_alias(self, argv, st, ctx):
        for a in argv[1:]:
            t = a.known()
            if t and "=" in t:
                self.run_code("sh", Val.of(t.split("=", 1)[1]), st, ctx, [], Val.of("sh"), "alias")
        return EMPTY_VAL

    def h_trap(self, argv, st, ctx):
        # A trap runs later (at exit, on a signal), with the variables of that moment: analyse it
        # when the script that set it ends.
        args = [a for a in argv[1:] if a.known() not in ("--",)]
        if len(args) >= 2 and args[0].known() not in ("-", "-p", "-l"):
            self.e.traps.append((args[0], st, ctx))
        return EMPTY_VAL

    def _run_traps(self):
        while self.e.traps:
            code, st, ctx = self.e.traps.pop(0)
            self.run_code("sh", code, st, ctx, [], st.argv0, "trap")

    def h_eval(self, argv, st, ctx):
        return self.run_code("sh", join_vals(argv[1:]), st, ctx, [], st.argv0, "eval", inplace=True)

    def h_source(self, argv, st, ctx):
        if len(argv) < 2:
            return EMPTY_VAL
        content = self.read_file(argv[1], st, ctx.stdin)
        return self.run_code(
            "sh", content, st, ctx, argv[2:], st.argv0, "source %s" % argv[1].render(), inplace=True
        )

    def h_exec(self, argv, st, ctx):
        _, _, rest = parse_opts(argv[1:], short_with_arg="a", stop_at_operand=True)
        return self.dispatch(rest, st, ctx) if rest else EMPTY_VAL

    def h_command(self, argv, st, ctx):
        flags, _, rest = parse_opts(argv[1:], stop_at_operand=True)
        if flags & {"v", "V"}:
            return output_of("command")
        return self.dispatch(rest, st, ctx) if rest else EMPTY_VAL
