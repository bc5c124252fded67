"""Commands that run another command (env, sudo, su, nice, timeout, xargs, watch, flock, busybox
...): the wrapped command is dispatched as if run directly.

A mixin of CommandHandlers (see __init__.py); `self` is the ShellAnalyzer (../shell.py)."""

import re
import shlex

from ..shellutil import (
    Ctx,
    has_glob,
    join_vals,
    output_of,
    parse_opts,
    strip_newlines,
    unescape,
    val_replace,
)
from ..values import EMPTY_VAL, Val


class WrapperCommands:
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
