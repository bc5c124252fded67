"""Expansion of words as bash does it, for the shell walk (shell.py): parameters and their
`${...}` operators, the positional parameters and arrays, tildes, command and process
substitution, field splitting and brace expansion, and the value of a loop variable. WordExpansion
is a mixin of ShellAnalyzer; the helpers that need no script state are in shexpand.py.
"""

import re

from .shellutil import has_glob, join_vals, strip_newlines
from .shexpand import _arith_value, _brace_expand, _FieldBuilder, _replace, _trim
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


class WordExpansion:
    """A word -> its fields, a parameter -> its value. `self` is the ShellAnalyzer (shell.py)."""

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
