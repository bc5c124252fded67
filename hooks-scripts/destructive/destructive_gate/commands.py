"""The commands the gate knows, one handler each: what a command means for the rules (rm, find,
chmod, dd, mkfs, git, curl ...), how wrappers and interpreters hand on the code they run (env,
sudo, xargs, sh -c, python -c, eval ...), and what a command prints when that can be known (echo,
printf, base64 -d, xxd -r, rev, tr, gunzip ...), so that pipes can be followed.

CommandHandlers is a mixin of ShellAnalyzer (shell.py), which provides dispatch, run_code,
read_file and the walk the handlers rely on.
"""

import base64
import binascii
import posixpath
import re
import shlex

from .shellutil import (
    AWKS,
    BIN_DIRS,
    DOWNLOADERS_STDOUT,
    FOREIGN,
    SHELLS,
    Ctx,
    State,
    concat_vals,
    downloaded,
    has_glob,
    join_vals,
    map_known,
    output_of,
    parse_opts,
    self_val,
    strip_newlines,
    texts_of,
    to_bytes,
    to_str,
    unescape,
    val_replace,
)
from .values import EMPTY_VAL, Unknown, Val, normalize

FIND_FILTERS = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-lname",
        "-ilname",
        "-newer",
        "-anewer",
        "-cnewer",
        "-newermt",
        "-newerct",
        "-neweraa",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-size",
        "-empty",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-nouser",
        "-nogroup",
        "-perm",
        "-links",
        "-inum",
        "-samefile",
        "-used",
        "-readable",
        "-writable",
        "-executable",
        "-fstype",
    }
)
FIND_ARG_TESTS = frozenset(
    FIND_FILTERS - {"-empty", "-nouser", "-nogroup", "-readable", "-writable", "-executable"}
) | {
    "-maxdepth",
    "-mindepth",
    "-type",
    "-xtype",
    "-printf",
    "-fprintf",
    "-fprint",
    "-fprint0",
    "-fls",
    "-regextype",
    "-D",
}
GIT_GLOBAL_WITH_ARG = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix"}
)
WHOLE_TREE_PATHSPECS = frozenset({".", "./", ":/", ":/.", "*", ":(top)", ":(glob)*", "/", ":"})


class CommandHandlers:
    # ------------------------------------------------------------ foreign interpreters

    def foreign(self, lang, code, st, ctx, via):
        text = code.known() or "".join(p for p in code.parts if isinstance(p, str))
        raw = ctx.raw
        if re.search(r"\bfork\b", text) and re.search(r"\b(while|until|for|loop|each|times)\b", text):
            self.e.block("fork-bomb", raw, note="%s code forks in a loop" % lang)
        for m in _FOREIGN_EXEC_RE.finditer(text):
            literals = _string_literals(_call_args(text, m.end()))
            if not literals:
                continue
            if len(literals) == 1:
                cmd = Val.of(literals[0])
            else:
                cmd = Val.of(" ".join(shlex.quote(s) for s in literals))
            self.run_code(
                "sh",
                cmd,
                State(st.cwd, st.vfs),
                Ctx(EMPTY_VAL, False, False, raw),
                [],
                Val.of("sh"),
                "%s %s()" % (lang, m.group(1)),
            )
        for m in _FOREIGN_BACKTICK_RE.finditer(text):
            self.run_code(
                "sh",
                Val.of(m.group(1) or m.group(2) or m.group(3) or ""),
                State(st.cwd, st.vfs),
                Ctx(EMPTY_VAL, False, False, raw),
                [],
                Val.of("sh"),
                "%s backticks" % lang,
            )
        for m in _FOREIGN_DELETE_RE.finditer(text):
            recursive = m.group(1).lower() not in ("unlink", "unlinksync", "delete", "remove")
            for lit in _string_literals(_call_args(text, m.end()))[:1]:
                self.e.check_delete(Val.of(lit), st.cwd, recursive, True, raw)
        if lang in AWKS and re.search(r"\|\s*\"\s*(ba|da|z|k)?sh\b", text):
            self.e.block("opaque-code-execution", raw, note="awk prints into a shell")
        return output_of(lang)

    def h_noop(self, argv, st, ctx):
        return EMPTY_VAL

    def h_echo(self, argv, st, ctx):
        args = argv[1:]
        newline, escapes = True, False
        while args and (args[0].known() or "") and re.fullmatch(r"-[neE]+", args[0].known()):
            flags = args[0].known()
            newline = newline and "n" not in flags
            escapes = ("e" in flags) or (escapes and "E" not in flags)
            args = args[1:]
        out = join_vals(args)
        if escapes:
            out = map_known(out, lambda t: unescape(t, printf=False))
        return out + Val.of("\n") if newline else out

    def h_printf(self, argv, st, ctx):
        args = argv[1:]
        var = None
        if args and args[0].known() == "-v" and len(args) > 1:
            var = args[1].known()
            args = args[2:]
        if args and args[0].known() == "--":
            args = args[1:]
        if not args:
            return EMPTY_VAL
        fmt = args[0].known()
        out = _printf(fmt, args[1:]) if fmt is not None else output_of("printf")
        if var:
            st.vars[var] = out
            return EMPTY_VAL
        return out

    def h_cat(self, argv, st, ctx):
        flags, _, files = parse_opts(argv[1:])
        if not files:
            return ctx.stdin
        return concat_vals([self.read_file(f, st, ctx.stdin) for f in files])

    def h_passthrough(self, argv, st, ctx):
        """Filters whose output is (a subset of) their input: head, tail, sort, tac ..."""
        flags, values, files = parse_opts(argv[1:], short_with_arg="nckt")
        if files:
            return concat_vals([self.read_file(f, st, ctx.stdin) for f in files])
        return ctx.stdin

    def h_base64(self, argv, st, ctx, decoder=None):
        flags, values, files = parse_opts(argv[1:], short_with_arg="w", long_with_arg=("--wrap",))
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        decode = bool(flags & {"d", "D", "--decode"})
        name = argv[0].known() or "base64"
        if not decode:
            return output_of(name)
        text = data.known()
        if text is None:
            return Val.unknown(
                "download" if any(u.origin == "download" for u in data.unknowns()) else "decode",
                maybe_empty=True,
                label=name,
            )
        try:
            if "32" in name:
                raw = base64.b32decode(_pad(re.sub(r"\s+", "", text), 8))
            else:
                cleaned = (
                    re.sub(r"[^A-Za-z0-9+/=_-]", "", text)
                    if "i" in flags or "--ignore-garbage" in flags
                    else re.sub(r"\s+", "", text)
                )
                raw = base64.b64decode(
                    _pad(cleaned, 4), altchars=b"-_" if "-" in cleaned or "_" in cleaned else None
                )
        except (binascii.Error, ValueError):
            return Val.unknown("decode", maybe_empty=True, label=name)
        return Val.of(to_str(raw))

    def h_xxd(self, argv, st, ctx):
        flags, values, files = parse_opts(argv[1:], short_with_arg="cglosn", long_with_arg=())
        if "r" not in flags and "-revert" not in flags:
            return output_of("xxd")
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        text = data.known()
        if text is None:
            return Val.unknown("decode", maybe_empty=True, label="xxd")
        plain = (
            "p" in flags
            or "-ps" in flags
            or "-plain" in flags
            or "--ps" in flags
            or "--plain" in flags
            or "-postscript" in flags
        )
        if not plain:
            # Classic dump lines: "00000000: 726d 202d 7266 202f  rm -rf /"
            hexes = []
            for line in text.splitlines():
                m = re.match(r"\s*[0-9a-fA-F]+:\s*((?:[0-9a-fA-F]{2,4}\s?)+)", line)
                if m:
                    hexes.append(m.group(1))
            text = " ".join(hexes)
        digits = re.sub(r"[^0-9a-fA-F]", "", text)
        try:
            return Val.of(to_str(binascii.unhexlify(digits[: len(digits) // 2 * 2])))
        except binascii.Error:
            return Val.unknown("decode", maybe_empty=True, label="xxd")

    def h_rev(self, argv, st, ctx):
        _, _, files = parse_opts(argv[1:])
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        text = data.known()
        if text is None:
            return Val.unknown("decode", maybe_empty=True, label="rev")
        return Val.of("".join(line[::-1] + "\n" for line in text.splitlines()))

    def h_tr(self, argv, st, ctx):
        flags, _, sets = parse_opts(argv[1:])
        text = ctx.stdin.known()
        sets_t = texts_of(sets)
        if text is None or any(s is None for s in sets_t) or not sets_t:
            return Val.unknown("decode", maybe_empty=True, label="tr")
        s1 = _tr_set(sets_t[0])
        if "d" in flags or "--delete" in flags:
            return Val.of("".join(c for c in text if c not in set(s1)))
        if len(sets_t) < 2:
            return ctx.stdin
        s2 = _tr_set(sets_t[1])
        if not s2:
            return ctx.stdin
        s2 = s2 + s2[-1] * max(0, len(s1) - len(s2))
        table = {}
        for a, b in zip(s1, s2):
            table.setdefault(ord(a), b)
        return Val.of(text.translate(table))

    def h_decompress(self, argv, st, ctx):
        name = argv[0].known()
        flags, _, files = parse_opts(argv[1:])
        if name in ("gzip", "bzip2", "xz", "lzma", "zstd") and not flags & {
            "d",
            "--decompress",
            "--uncompress",
        }:
            return output_of(name)
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        text = data.known()
        if text is None:
            return Val.unknown("decode", maybe_empty=True, label=name)
        try:
            if name in ("gzip", "gunzip", "zcat"):
                import gzip

                raw = gzip.decompress(to_bytes(text))
            elif name in ("bzip2", "bunzip2", "bzcat"):
                import bz2

                raw = bz2.decompress(to_bytes(text))
            elif name in ("xz", "unxz", "xzcat", "lzma", "unlzma"):
                import lzma

                raw = lzma.decompress(to_bytes(text))
            else:
                return Val.unknown("decode", maybe_empty=True, label=name)
        except Exception:  # any corrupt stream: the gate cannot know what comes out
            return Val.unknown("decode", maybe_empty=True, label=name)
        return Val.of(to_str(raw))

    def h_openssl(self, argv, st, ctx):
        words = texts_of(argv[1:])
        if "-d" not in words:
            return output_of("openssl")
        if "base64" in words or "-base64" in words or "-a" in words:
            # `openssl base64 -d [-in FILE]` / `openssl enc -base64 -d`: a base64 decoder.
            files = [argv[i + 2] for i, w in enumerate(words) if w == "-in" and i + 2 < len(argv)]
            return self.h_base64([Val.of("base64"), Val.of("-d")] + files[:1], st, ctx)
        return Val.unknown("decode", maybe_empty=True, label="openssl")

    def h_tee(self, argv, st, ctx):
        _, _, files = parse_opts(argv[1:])
        for f in files:
            self.e.check_write(f, st.cwd, ctx.raw)
            path = self.paths.absolute(f.known() or "", st.cwd) if f.known() else None
            if path:
                st.vfs[path] = ctx.stdin
        return ctx.stdin

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

    def _wrapper(self, argv, st, ctx, short_with_arg="", long_with_arg=(), skip=0):
        """Run the command a wrapper (nohup, nice, timeout ...) starts."""
        _, _, rest = parse_opts(argv[1:], short_with_arg, long_with_arg, stop_at_operand=True)
        rest = rest[skip:]
        return self.dispatch(rest, st, ctx) if rest else output_of(argv[0].known() or "")

    def h_plain_wrapper(self, argv, st, ctx):
        return self._wrapper(argv, st, ctx)

    def h_nice(self, argv, st, ctx):
        return self._wrapper(argv, st, ctx, "n", ("--adjustment",))

    def h_timeout(self, argv, st, ctx):
        return self._wrapper(argv, st, ctx, "sk", ("--signal", "--kill-after"), skip=1)

    def h_stdbuf(self, argv, st, ctx):
        return self._wrapper(argv, st, ctx, "ioe", ("--input", "--output", "--error"))

    def h_ionice(self, argv, st, ctx):
        return self._wrapper(argv, st, ctx, "cnpPu", ("--class", "--classdata", "--pid", "--pgid", "--uid"))

    def h_chroot(self, argv, st, ctx):
        return self._wrapper(argv, st, ctx, "", ("--userspec", "--groups"), skip=1)

    def h_taskset(self, argv, st, ctx):
        flags, _, rest = parse_opts(argv[1:], stop_at_operand=True)
        return self.dispatch(rest[1:], st, ctx) if len(rest) > 1 else EMPTY_VAL

    def h_flock(self, argv, st, ctx):
        flags, values, rest = parse_opts(
            argv[1:],
            short_with_arg="wEc",
            long_with_arg=("--timeout", "--conflict-exit-code", "--command"),
            stop_at_operand=True,
        )
        cmd = values.get("c") or values.get("--command")
        if cmd is not None:
            return self.run_code("sh", cmd, st, ctx, [], Val.of("sh"), "flock -c")
        return self.dispatch(rest[1:], st, ctx) if len(rest) > 1 else EMPTY_VAL

    def h_sudo(self, argv, st, ctx):
        flags, values, rest = parse_opts(
            argv[1:],
            short_with_arg="ugpCUrthDRTc",
            long_with_arg=(
                "--user",
                "--group",
                "--prompt",
                "--close-from",
                "--other-user",
                "--role",
                "--type",
                "--host",
                "--chdir",
                "--chroot",
                "--command-timeout",
            ),
            stop_at_operand=True,
        )
        if values.get("c") is not None:  # doas -c / su-like
            return self.run_code("sh", values["c"], st, ctx, [], Val.of("sh"), "sudo -c")
        if flags & {"s", "i", "--shell", "--login"} and rest:
            return self.run_code("sh", join_vals(rest), st, ctx, [], Val.of("sh"), "sudo -s")
        return self.dispatch(rest, st, ctx) if rest else EMPTY_VAL

    def h_su(self, argv, st, ctx):
        flags, values, rest = parse_opts(
            argv[1:],
            short_with_arg="cgGsw",
            long_with_arg=(
                "--command",
                "--group",
                "--supp-group",
                "--shell",
                "--whitelist-environment",
                "--session-command",
            ),
        )
        cmd = values.get("c") or values.get("--command") or values.get("--session-command")
        if cmd is not None:
            return self.run_code("sh", cmd, st, ctx, [], Val.of("sh"), "su -c")
        return EMPTY_VAL

    def h_watch(self, argv, st, ctx):
        _, _, rest = parse_opts(
            argv[1:],
            short_with_arg="nqd",
            long_with_arg=("--interval", "--differences"),
            stop_at_operand=True,
        )
        if not rest:
            return EMPTY_VAL
        return self.run_code("sh", join_vals(rest), st, ctx, [], Val.of("sh"), "watch")

    def h_env(self, argv, st, ctx):
        args = argv[1:]
        cst = st.copy()
        i = 0
        while i < len(args):
            t = args[i].known()
            if t is None:
                break
            if t in ("-i", "-0", "--ignore-environment", "--null", "-"):
                i += 1
            elif t in ("-u", "--unset", "-C", "--chdir"):
                if t in ("-C", "--chdir") and i + 1 < len(args):
                    self.h_cd([Val.of("cd"), args[i + 1]], cst, ctx)
                i += 2
            elif t in ("-S", "--split-string") or t.startswith("-S"):
                # env -S "rm -rf /": the string is split into words like a shell would.
                text = args[i + 1] if t in ("-S", "--split-string") and i + 1 < len(args) else Val.of(t[2:])
                rest = join_vals([text] + args[i + 2 :])
                return self.run_code("sh", rest, cst, ctx, [], Val.of("sh"), "env -S")
            elif t.startswith("--unset=") or t.startswith("--chdir="):
                i += 1
            elif t == "--":
                i += 1
                break
            elif re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", t):
                name, _, value = t.partition("=")
                cst.vars[name] = Val.of(value)
                i += 1
            else:
                break
        rest = args[i:]
        return self.dispatch(rest, cst, ctx) if rest else output_of("env")

    def h_busybox(self, argv, st, ctx):
        return self.dispatch(argv[1:], st, ctx) if len(argv) > 1 else EMPTY_VAL

    def h_xargs(self, argv, st, ctx):
        flags, values, rest = parse_opts(
            argv[1:],
            short_with_arg="ILnPsdEaeli",
            long_with_arg=(
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--replace",
                "--eof",
                "--max-chars",
                "--process-slot-var",
            ),
            stop_at_operand=True,
        )
        cmd = rest or [Val.of("echo")]
        replace = values.get("I") or values.get("--replace") or (values.get("i") if "i" in flags else None)
        if "i" in flags and replace is None:
            replace = Val.of("{}")
        src = values.get("a") or values.get("--arg-file")
        data = self.read_file(src, st, ctx.stdin) if src is not None else ctx.stdin
        text = data.known()
        if text is not None:
            if "0" in flags or "--null" in flags:
                items = [x for x in text.split("\0") if x]
            elif values.get("d") is not None or values.get("--delimiter") is not None:
                d = (values.get("d") or values.get("--delimiter")).known() or "\n"
                d = unescape(d, printf=True) or "\n"
                items = [x for x in text.split(d[0]) if x]
            elif replace is not None:
                items = [x.strip() for x in text.split("\n") if x.strip()]
            else:
                try:
                    items = shlex.split(text)  # xargs honours quotes much like sh does
                except ValueError:
                    items = text.split()
            items = [Val((x,), glob=has_glob(x)) for x in items[:64]]
        else:
            items = [strip_newlines(data)]
        sub_ctx = Ctx(EMPTY_VAL, ctx.bg, ctx.piped, ctx.raw)
        token = replace.known() if replace is not None else None
        if token:
            out = EMPTY_VAL
            for item in items[:16]:
                new = [val_replace(a, token, item) for a in cmd]
                out = self.dispatch(new, st.copy(), sub_ctx)
            return out
        return self.dispatch(cmd + items, st.copy(), sub_ctx)

    # -- deletion, permissions, disks

    def h_rm(self, argv, st, ctx):
        flags, _, targets = parse_opts(argv[1:])
        recursive = bool(flags & {"r", "R", "--recursive"})
        forced = bool(flags & {"f", "--force"})
        for t in targets:
            self.e.check_delete(t, st.cwd, recursive, forced, ctx.raw, refuses_dot=True)
        return EMPTY_VAL

    def h_unlink(self, argv, st, ctx):
        _, _, targets = parse_opts(argv[1:])
        for t in targets:
            self.e.check_delete(t, st.cwd, False, False, ctx.raw)
        return EMPTY_VAL

    def h_shred(self, argv, st, ctx):
        flags, _, targets = parse_opts(
            argv[1:], short_with_arg="ns", long_with_arg=("--iterations", "--size", "--random-source")
        )
        for t in targets:
            devices = self.paths.device_targets(t, st.cwd)
            if devices:
                self.e.block("disk-writer", ctx.raw, devices[0])
            # shred destroys the content even without -u: as bad as deleting it.
            self.e.check_delete(t, st.cwd, False, True, ctx.raw)
        return EMPTY_VAL

    def h_find(self, argv, st, ctx):
        args = argv[1:]
        i = 0
        while i < len(args) and args[i].known() in ("-H", "-L", "-P", "-D", "-O3", "-O2", "-O1", "-O0"):
            i += 2 if args[i].known() == "-D" else 1
        starts = []
        while i < len(args):
            t = args[i].known()
            if t is not None and (t.startswith("-") or t in ("(", "!", ")", ",")) and t != "-":
                break
            starts.append(args[i])
            i += 1
        expr = args[i:]
        words = texts_of(expr)
        filtered = any(w in FIND_FILTERS for w in words)
        starts = starts or [Val.of(".")]
        out = []
        for start in starts:
            found = start + Val((Unknown("found", subpath=True, maybe_empty=not filtered),))
            found.glob = start.glob
            j = 0
            acted = False
            while j < len(expr):
                w = words[j]
                if w == "-delete":
                    self.e.check_delete(found, st.cwd, True, True, ctx.raw, tree=True)
                    acted = True
                elif w in ("-exec", "-execdir", "-ok", "-okdir"):
                    k = j + 1
                    cmd = []
                    while k < len(expr) and words[k] not in (";", "+"):
                        cmd.append(expr[k])
                        k += 1
                    if cmd:
                        cmd = [val_replace(c, "{}", found) for c in cmd]
                        self.dispatch(cmd, st.copy(), Ctx(EMPTY_VAL, ctx.bg, ctx.piped, ctx.raw))
                    acted = True
                    j = k
                elif w in FIND_ARG_TESTS:
                    j += 1
                j += 1
            if not acted or "-print" in words or "-print0" in words:
                out.append(found + Val.of("\n"))
        return concat_vals(out)

    def h_chmod(self, argv, st, ctx):
        name = argv[0].known()
        args = argv[1:]
        opts, operands, done = [], [], False
        for a in args:
            t = a.known()
            if not done and t == "--":
                done = True
            elif (
                not done
                and t
                and t.startswith("-")
                and len(t) > 1
                and (name != "chmod" or re.fullmatch(r"-[cfvRHLPh]+|--[a-z-]+(=.*)?", t))
            ):
                opts.append(t)
            else:
                operands.append(a)
        recursive = any(o == "--recursive" or (not o.startswith("--") and "R" in o) for o in opts)
        if name == "chattr":
            operands = [o for o in operands if (o.known() or "x")[:1] not in "+-="]
        elif name == "setfacl":
            flags, values, operands = parse_opts(
                args,
                short_with_arg="mMxX",
                long_with_arg=(
                    "--modify",
                    "--modify-file",
                    "--remove",
                    "--remove-file",
                    "--set",
                    "--set-file",
                ),
            )
            recursive = bool(flags & {"R", "--recursive"})
        elif not any(o.startswith("--reference") for o in opts):
            operands = operands[1:]  # the mode, owner or group
        for t in operands:
            self.e.check_perm(t, st.cwd, recursive, ctx.raw)
        return EMPTY_VAL

    def h_dd(self, argv, st, ctx):
        out = None
        for a in argv[1:]:
            first = a.parts[0] if a.parts else ""
            if isinstance(first, str) and first.startswith("of="):
                target = Val((first[3:],) + a.parts[1:])
                self.e.check_write(target, st.cwd, ctx.raw)
                out = target
        return output_of("dd") if out is None else EMPTY_VAL

    def h_mkfs(self, argv, st, ctx):
        flags, _, operands = parse_opts(argv[1:], short_with_arg="tbCEgGiIJlLmMNoOrTUde")
        for t in operands:
            self.e.check_disk_target(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_wipefs(self, argv, st, ctx):
        flags, _, operands = parse_opts(
            argv[1:], short_with_arg="obtO", long_with_arg=("--offset", "--backup", "--types", "--output")
        )
        if flags & {"n", "--no-act", "h", "--help", "V", "--version"}:
            return EMPTY_VAL
        for t in operands:
            self.e.check_disk_target(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_partition(self, argv, st, ctx):
        name = argv[0].known()
        flags, _, operands = parse_opts(
            argv[1:],
            short_with_arg="bcCHSuLoN",
            long_with_arg=("--sector-size", "--label", "--output", "--partno"),
        )
        words = set(texts_of(operands))
        # Read-only modes (listing, dumping, printing) differ from tool to tool.
        readonly = _PARTITION_READONLY.get(name, frozenset()) | {"h", "--help", "V", "--version"}
        if flags & readonly or (name == "parted" and words & {"print", "list"}):
            return EMPTY_VAL
        for t in operands:
            if re.fullmatch(
                r"[0-9]+[KMGTkmgt%]?[Bb]?|mklabel|mkpart|rm|primary|gpt|msdos|ext4|fat32", t.known() or "/"
            ):
                continue
            self.e.check_disk_target(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_blockdev_tool(self, argv, st, ctx):
        """blkdiscard, badblocks -w, hdparm erase options, cryptsetup format: any device target."""
        name = argv[0].known()
        words = texts_of(argv[1:])
        if name == "badblocks" and not any(
            w in ("-w", "-n") or (w and w.startswith("-") and ("w" in w or "n" in w)) for w in words if w
        ):
            return EMPTY_VAL
        if name == "hdparm" and not any(
            w
            and (
                w.startswith("--security-erase")
                or w
                in (
                    "--trim-sector-ranges",
                    "--write-sector",
                    "--make-bad-sector",
                    "--fwdownload",
                    "--dco-restore",
                )
            )
            for w in words
        ):
            return EMPTY_VAL
        if name == "cryptsetup" and not any(
            w in ("luksFormat", "erase", "luksErase", "reencrypt", "luksKillSlot", "open") for w in words
        ):
            return EMPTY_VAL
        for a in argv[1:]:
            devices = self.paths.device_targets(a, st.cwd)
            if devices:
                self.e.block("disk-writer", ctx.raw, devices[0])
        return EMPTY_VAL

    def h_truncate(self, argv, st, ctx):
        _, _, targets = parse_opts(
            argv[1:], short_with_arg="sr", long_with_arg=("--size", "--reference", "--io-blocks")
        )
        for t in targets:
            self.e.check_write(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_cp(self, argv, st, ctx):
        flags, values, ops = parse_opts(
            argv[1:],
            short_with_arg="tSm",
            long_with_arg=("--target-directory", "--suffix", "--mode", "--backup"),
        )
        dest = values.get("t") or values.get("--target-directory")
        if dest is None and len(ops) >= 2:
            dest = ops[-1]
            ops = ops[:-1]
        name = argv[0].known()
        if name == "mv":
            for src in ops:
                self.e.check_move(src, st.cwd, ctx.raw)
        if dest is not None and len(ops) == 1 and dest.known() and ops[0].known():
            # A system binary copied under another name is still that binary when run.
            src_path = self.paths.absolute(ops[0].known(), st.cwd)
            dst_path = self.paths.absolute(dest.known(), st.cwd)
            if src_path and dst_path and posixpath.dirname(src_path) in BIN_DIRS:
                self.e.binary_copies[dst_path] = src_path
        if dest is not None:
            self.e.check_write(dest, st.cwd, ctx.raw)
            if name == "cp" and len(ops) == 1 and dest.known() and ops[0].known():
                src_path = self.paths.absolute(ops[0].known(), st.cwd)
                dst_path = self.paths.absolute(dest.known(), st.cwd)
                if src_path in st.vfs and dst_path:
                    st.vfs[dst_path] = st.vfs[src_path]
        return EMPTY_VAL

    def h_rsync(self, argv, st, ctx):
        flags, _, ops = parse_opts(
            argv[1:],
            short_with_arg="efT",
            long_with_arg=("--rsh", "--filter", "--exclude", "--include", "--temp-dir", "--chmod"),
        )
        if any(f.startswith("--delete") or f == "--remove-source-files" for f in flags) and ops:
            self.e.check_delete(ops[-1], st.cwd, True, True, ctx.raw)
        if ops:
            self.e.check_write(ops[-1], st.cwd, ctx.raw)
        return EMPTY_VAL

    # -- git

    def h_git(self, argv, st, ctx):
        args = argv[1:]
        words = texts_of(args)
        i = 0
        while i < len(words):
            w = words[i]
            if w is None or not w.startswith("-"):
                break
            if w in GIT_GLOBAL_WITH_ARG:
                if w == "-c" and i + 1 < len(words) and words[i + 1]:
                    self._git_config_alias(words[i + 1], st)
                i += 2
            else:
                i += 1
        if i >= len(words) or words[i] is None:
            return output_of("git")
        sub, rest, rest_v = words[i], words[i + 1 :], args[i + 1 :]
        if sub in st.git_aliases:
            alias = st.git_aliases[sub]
            if alias.startswith("!"):
                return self.run_code(
                    "sh", Val.of(alias[1:]), st, ctx, rest_v, Val.of("git"), "git alias %s" % sub
                )
            try:
                expanded = shlex.split(alias)
            except ValueError:
                expanded = alias.split()
            return self.h_git([argv[0]] + [Val.of(x) for x in expanded] + rest_v, st, ctx)
        if sub == "config":
            rest_t = [r for r in rest if r and not r.startswith("-")]
            if len(rest_t) >= 2 and rest_t[0].startswith("alias."):
                st.git_aliases[rest_t[0][6:]] = rest_t[1]
            return output_of("git")
        reason = _git_rule(sub, [r if r is not None else "\0" for r in rest])
        if reason:
            self.e.block("git-destructive", ctx.raw, note=reason)
        return output_of("git")

    def _git_config_alias(self, setting, st):
        key, eq, value = setting.partition("=")
        if eq and key.startswith("alias."):
            st.git_aliases[key[6:]] = value

    # -- downloads and interpreters

    def h_curl(self, argv, st, ctx):
        flags, values, ops = parse_opts(
            argv[1:],
            short_with_arg="AbcCdDeEFHKmoPQrtTuUwxXyYz",
            long_with_arg=(
                "--output",
                "--output-dir",
                "--data",
                "--data-binary",
                "--data-raw",
                "--data-urlencode",
                "--header",
                "--request",
                "--user",
                "--user-agent",
                "--url",
                "--config",
                "--cookie",
                "--cookie-jar",
                "--max-time",
                "--connect-timeout",
                "--retry",
                "--proxy",
                "--write-out",
                "--form",
                "--upload-file",
                "--cacert",
                "--cert",
                "--key",
                "--resolve",
                "--referer",
                "--range",
                "--dump-header",
                "--continue-at",
            ),
        )
        urls = ops + ([values["--url"]] if "--url" in values else [])
        output = values.get("o") or values.get("--output")
        if output is not None and output.known() != "-":
            self._record_download(output, st, "curl")
            return EMPTY_VAL
        if flags & {"O", "--remote-name", "--remote-name-all"}:
            for u in urls:
                self._record_download(Val.of(_url_basename(u.known() or "")), st, "curl")
            return EMPTY_VAL
        return downloaded("curl")

    def h_wget(self, argv, st, ctx):
        flags, values, ops = parse_opts(
            argv[1:],
            short_with_arg="OoaPtTwQeUiBDIXlAR",
            long_with_arg=(
                "--output-document",
                "--output-file",
                "--directory-prefix",
                "--tries",
                "--timeout",
                "--user-agent",
                "--header",
                "--input-file",
                "--user",
                "--password",
                "--execute",
            ),
        )
        output = values.get("O") or values.get("--output-document")
        if output is not None:
            if output.known() == "-":
                return downloaded("wget")
            self._record_download(output, st, "wget")
            return EMPTY_VAL
        prefix = values.get("P") or values.get("--directory-prefix")
        for u in ops:
            name = _url_basename(u.known() or "") or "index.html"
            path = (
                Val.of(prefix.known().rstrip("/") + "/" + name)
                if prefix is not None and prefix.known()
                else Val.of(name)
            )
            self._record_download(path, st, "wget")
        return EMPTY_VAL

    def _record_download(self, target, st, tool):
        t = target.known()
        if t:
            path = self.paths.absolute(t, st.cwd)
            if path:
                st.vfs[path] = downloaded(tool)

    def h_downloader(self, argv, st, ctx):
        return downloaded(argv[0].known() or "download")

    def h_shell(self, argv, st, ctx):
        name = posixpath.basename(argv[0].known() or "sh")
        args = argv[1:]
        i, has_c, read_stdin = 0, False, False
        while i < len(args):
            t = args[i].known()
            if t is None:
                break
            if t == "--" or t == "-":
                i += 1
                break
            if t in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if t.startswith("--"):
                i += 1
                continue
            if t[:1] in "-+" and len(t) > 1:
                has_c = has_c or "c" in t[1:]
                read_stdin = read_stdin or "s" in t[1:]
                i += 1
                continue
            break
        rest = args[i:]
        if has_c:
            if not rest:
                return EMPTY_VAL
            argv0 = rest[1] if len(rest) > 1 else Val.of(name)
            return self.run_code("sh", rest[0], st, ctx, rest[2:], argv0, "%s -c" % name)
        if rest and not read_stdin:
            script = rest[0]
            if any(u.origin == "self" for u in script.unknowns()):
                self._self_exec(ctx, st)
            content = self.read_file(script, st, ctx.stdin)
            return self.run_code(
                "sh", content, st, ctx, rest[1:], self_val(script), "%s %s" % (name, script.render())
            )
        return self.run_code("sh", ctx.stdin, st, ctx, rest, Val.of(name), "stdin of %s" % name)

    def h_python(self, argv, st, ctx):
        name = argv[0].known() or "python3"
        args = argv[1:]
        i = 0
        while i < len(args):
            t = args[i].known()
            if t is None:
                break
            if t == "-c" or (
                t.startswith("-")
                and not t.startswith("--")
                and t.endswith("c")
                and len(t) > 2
                and set(t[1:-1]) <= set("bBdEhiIOqsSuvx")
            ):
                code = args[i + 1] if i + 1 < len(args) else EMPTY_VAL
                return self.run_code("python", code, st, ctx, [], Val.of(name), "%s -c" % name)
            if t.startswith("-c") and len(t) > 2:
                return self.run_code("python", Val.of(t[2:]), st, ctx, [], Val.of(name), "%s -c" % name)
            if t == "-m":
                return output_of(name)
            if t in ("-W", "-X", "--check-hash-based-pycs"):
                i += 2
                continue
            if t == "-":
                i = len(args) + 1
                break
            if t.startswith("-") and len(t) > 1:
                i += 1
                continue
            break
        if i < len(args):
            content = self.read_file(args[i], st, ctx.stdin)
            return self.run_code("python", content, st, ctx, [], args[i], "%s %s" % (name, args[i].render()))
        return self.run_code("python", ctx.stdin, st, ctx, [], Val.of(name), "stdin of %s" % name)

    def h_foreign(self, argv, st, ctx):
        name = posixpath.basename(argv[0].known() or "")
        lang = re.sub(r"[\d.]+$", "", name)
        flags = FOREIGN.get(lang, ())
        args = argv[1:]
        codes = []
        for j, a in enumerate(args):
            t = a.known()
            if t in flags and j + 1 < len(args):
                codes.append(args[j + 1])
            elif t and t[:2] in flags and len(t) > 2 and not t.startswith("--"):
                codes.append(Val.of(t[2:]))
        if not codes:
            ops = [a for a in args if not (a.known() or "x").startswith("-")]
            if ops:
                codes.append(self.read_file(ops[0], st, ctx.stdin))
            else:
                codes.append(ctx.stdin)
        for code in codes:
            self.run_code(lang, code, st, ctx, [], Val.of(name), "%s" % name)
        return output_of(name)

    def h_awk(self, argv, st, ctx):
        name = argv[0].known() or "awk"
        flags, values, ops = parse_opts(
            argv[1:],
            short_with_arg="Ffv",
            long_with_arg=("--file", "--field-separator", "--assign"),
            stop_at_operand=True,
        )
        prog = values.get("f") or values.get("--file")
        code = self.read_file(prog, st, ctx.stdin) if prog is not None else (ops[0] if ops else EMPTY_VAL)
        if code.has_known_text():
            self.foreign(name, code, st, ctx, name)
        return output_of(name)


_PARTITION_READONLY = {
    "fdisk": frozenset({"l", "--list"}),
    "sfdisk": frozenset(
        {"l", "--list", "d", "--dump", "J", "--json", "s", "--show-size", "--verify", "--list-free", "F"}
    ),
    "parted": frozenset({"l", "--list"}),
    "sgdisk": frozenset({"p", "--print", "v", "--verify", "i", "--info"}),
    "gdisk": frozenset({"l"}),
}


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([sbqdiouxXcfeEgGaA%])")


def _printf(fmt, args):
    fmt = unescape(fmt, printf=True)
    out = []
    idx = 0
    for _ in range(64):  # the format is reused while arguments remain
        pos = 0
        consumed = False
        for m in _PRINTF_SPEC.finditer(fmt):
            out.append(fmt[pos : m.start()])
            pos = m.end()
            conv = m.group(4)
            if conv == "%":
                out.append("%")
                continue
            arg = args[idx] if idx < len(args) else Val.of("")
            idx += 1
            consumed = True
            if conv == "b":
                out.extend(map_known(arg, lambda t: unescape(t, printf=False)).parts)
            elif conv in "sq":
                out.extend(arg.parts)
            elif conv == "c":
                t = arg.known()
                out.append(t[:1] if t is not None else Unknown("output"))
            else:
                t = arg.known()
                try:
                    out.append(
                        (
                            "%"
                            + (m.group(1) or "")
                            + (m.group(2) or "")
                            + ("." + m.group(3) if m.group(3) else "")
                            + conv
                        )
                        % (int(t, 0) if conv not in "feEgGaA" else float(t))
                    )
                except (TypeError, ValueError):
                    out.append(Unknown("output"))
        out.append(fmt[pos:])
        if idx >= len(args) or not consumed:
            break
    return Val(out)


def _tr_set(spec):
    classes = {
        "[:lower:]": "abcdefghijklmnopqrstuvwxyz",
        "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "[:digit:]": "0123456789",
        "[:space:]": " \t\n\r\f\v",
        "[:alpha:]": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "[:alnum:]": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    }
    for k, v in classes.items():
        spec = spec.replace(k, v)
    spec = unescape(spec, printf=True)
    out, i = [], 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            a, b = ord(spec[i]), ord(spec[i + 2])
            if a <= b:
                out.extend(chr(c) for c in range(a, b + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


def _pad(text, block):
    return text + "=" * (-len(text) % block)


def _url_basename(url):
    path = re.sub(r"^[a-z]+://[^/]*", "", url).split("?")[0].split("#")[0]
    return posixpath.basename(path)


def _git_rule(sub, rest):
    """Why a git command loses work, or None. The rule set is documented in docs/gates.md."""
    shorts = set()
    longs = set()
    positional = []
    after_dashdash = False
    for r in rest:
        if after_dashdash:
            positional.append(r)
        elif r == "--":
            after_dashdash = True
        elif r.startswith("--"):
            longs.add(r.split("=", 1)[0] if not r.startswith("--prune=") else r)
            if r.startswith("--force-with-lease"):
                longs.add("--force-with-lease")
        elif r.startswith("-") and len(r) > 1:
            shorts.update(r[1:])
        else:
            positional.append(r)
    if sub == "reset" and "--hard" in longs:
        return "reset --hard discards uncommitted changes"
    if (
        sub == "clean"
        and ("f" in shorts or "--force" in longs)
        and not ("n" in shorts or "--dry-run" in longs)
    ):
        return "clean -f deletes untracked files"
    if sub == "push":
        if (
            "f" in shorts
            or longs
            & {"--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune"}
            or "d" in shorts
        ):
            return "push that rewrites or deletes remote history"
        if any(p.startswith("+") or (p.startswith(":") and len(p) > 1) for p in positional):
            return "push that rewrites or deletes remote history"
    if sub == "checkout":
        if "f" in shorts or "--force" in longs or "B" in shorts:
            return "checkout --force discards local changes"
        if any(p in WHOLE_TREE_PATHSPECS for p in positional):
            return "checkout of the whole tree discards local changes"
    if sub == "restore":
        staged_only = ("S" in shorts or "--staged" in longs) and not ("W" in shorts or "--worktree" in longs)
        if not staged_only and any(p in WHOLE_TREE_PATHSPECS for p in positional):
            return "restore of the whole tree discards local changes"
    if sub == "switch" and (
        shorts & {"f", "C"} or longs & {"--force", "--discard-changes", "--force-create"}
    ):
        return "switch --force/-C discards changes or resets a branch"
    if sub == "branch":
        deleting = "d" in shorts or "--delete" in longs
        forced = "f" in shorts or "--force" in longs
        if "D" in shorts or (deleting and forced):
            return "branch -D deletes an unmerged branch"
        if forced or "M" in shorts or "C" in shorts:
            return "branch --force/-M/-C overwrites a branch"
    if sub in ("filter-branch", "filter-repo"):
        return "%s rewrites history" % sub
    if sub == "rebase" and not longs & {
        "--abort",
        "--continue",
        "--quit",
        "--edit-todo",
        "--show-current-patch",
    }:
        return "rebase rewrites history"
    if sub == "reflog" and positional[:1] and positional[0] in ("expire", "delete"):
        return "reflog %s drops recovery points" % positional[0]
    if sub == "stash" and positional[:1] and positional[0] in ("drop", "clear"):
        return "stash %s deletes stashed work" % positional[0]
    if sub == "gc" and any(x in longs for x in ("--prune=now", "--prune=all")):
        return "gc --prune=now deletes unreachable commits"
    if sub == "prune":
        return "prune deletes unreachable objects"
    if sub == "update-ref" and "d" in shorts:
        return "update-ref -d deletes a ref"
    return None


_FOREIGN_EXEC_RE = re.compile(
    r"\b(system|exec|popen|spawn|spawnSync|execSync|execFileSync|shell_exec|passthru|proc_open|execute|qx)\s*\(?"
)
_FOREIGN_BACKTICK_RE = re.compile(r"`([^`]*)`|\bqx\{([^}]*)\}|%x\{([^}]*)\}")
_FOREIGN_DELETE_RE = re.compile(
    r"\b(rmtree|remove_tree|rm_rf|rm_r|rmSync|rmdirSync|unlinkSync|unlink|delete|remove)\s*\(?", re.I
)
_STRING_RE = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


def _call_args(text, start):
    """The argument text of a call starting at start: up to the closing paren, `;` or newline."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif c in ";\n" and depth == 0:
            break
        i += 1
    return text[start:i]


def _string_literals(text):
    out = []
    for m in _STRING_RE.finditer(text):
        s = m.group(1) if m.group(1) is not None else m.group(2)
        out.append(unescape(s, printf=True) if m.group(1) is not None else s.replace("\\'", "'"))
    return out


def _h(name):
    return getattr(CommandHandlers, name)


HANDLERS = {}
for _names, _method in (
    (
        (
            ":",
            "true",
            "false",
            "test",
            "[",
            "exit",
            "return",
            "let",
            "hash",
            "wait",
            "sleep",
            "mkdir",
            "touch",
            "shopt",
            "umask",
            "ulimit",
            "getopts",
            "break",
            "continue",
        ),
        None,
    ),
    (("ls",), "h_ls"),
    (("ln",), "h_ln"),
    (("echo",), "h_echo"),
    (("printf",), "h_printf"),
    (("cat",), "h_cat"),
    (("head", "tail", "sort", "tac", "uniq", "fold", "expand", "unexpand", "cut", "nl"), "h_passthrough"),
    (("base64", "base32"), "h_base64"),
    (("xxd",), "h_xxd"),
    (("rev",), "h_rev"),
    (("tr",), "h_tr"),
    (
        (
            "gzip",
            "gunzip",
            "zcat",
            "bzip2",
            "bunzip2",
            "bzcat",
            "xz",
            "unxz",
            "xzcat",
            "lzma",
            "unlzma",
            "zstd",
        ),
        "h_decompress",
    ),
    (("openssl",), "h_openssl"),
    (("tee",), "h_tee"),
    (("mktemp",), "h_mktemp"),
    (("pwd",), "h_pwd"),
    (("realpath", "readlink"), "h_realpath"),
    (("dirname",), "h_dirname"),
    (("cd",), "h_cd"),
    (("pushd",), "h_pushd"),
    (("popd",), "h_popd"),
    (("read",), "h_read"),
    (("mapfile", "readarray"), "h_mapfile"),
    (("unset",), "h_unset"),
    (("set",), "h_set"),
    (("shift",), "h_shift"),
    (("alias",), "h_alias"),
    (("trap",), "h_trap"),
    (("eval",), "h_eval"),
    ((".", "source"), "h_source"),
    (("exec",), "h_exec"),
    (("command", "builtin"), "h_command"),
    (
        (
            "nohup",
            "setsid",
            "time",
            "unbuffer",
            "strace",
            "ltrace",
            "catchsegv",
            "xvfb-run",
            "fakeroot",
            "proot",
            "firejail",
            "unshare",
            "nsenter",
            "caffeinate",
            "systemd-run",
        ),
        "h_plain_wrapper",
    ),
    (("nice",), "h_nice"),
    (("timeout",), "h_timeout"),
    (("stdbuf",), "h_stdbuf"),
    (("ionice",), "h_ionice"),
    (("chroot",), "h_chroot"),
    (("taskset", "chrt"), "h_taskset"),
    (("flock",), "h_flock"),
    (("sudo", "doas"), "h_sudo"),
    (("su", "runuser"), "h_su"),
    (("watch",), "h_watch"),
    (("env",), "h_env"),
    (("busybox", "toybox"), "h_busybox"),
    (("xargs",), "h_xargs"),
    (("rm", "srm", "wipe", "trash", "trash-put"), "h_rm"),
    (("unlink",), "h_unlink"),
    (("shred",), "h_shred"),
    (("find",), "h_find"),
    (("chmod", "chown", "chgrp", "chattr", "setfacl"), "h_chmod"),
    (("dd",), "h_dd"),
    (("mkswap", "mkdosfs", "mkntfs", "mke2fs", "mkexfatfs"), "h_mkfs"),
    (("wipefs",), "h_wipefs"),
    (("fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted"), "h_partition"),
    (("blkdiscard", "badblocks", "hdparm", "cryptsetup"), "h_blockdev_tool"),
    (("truncate",), "h_truncate"),
    (("cp", "mv", "install"), "h_cp"),
    (("rsync",), "h_rsync"),
    (("git",), "h_git"),
    (("curl",), "h_curl"),
    (("wget", "wget2"), "h_wget"),
    (tuple(DOWNLOADERS_STDOUT), "h_downloader"),
    (tuple(SHELLS), "h_shell"),
    (tuple(FOREIGN), "h_foreign"),
    (tuple(AWKS), "h_awk"),
):
    for _n in _names:
        HANDLERS[_n] = _h(_method) if _method else CommandHandlers.h_noop

# declare/export/local/typeset/readonly assign variables like plain assignments do.
for _n in ("export", "local", "readonly", "typeset", "declare"):
    HANDLERS[_n] = CommandHandlers.h_declare
