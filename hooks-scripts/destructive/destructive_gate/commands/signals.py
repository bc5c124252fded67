"""Commands that send signals: kill, pkill, killall, killall5. A signal to every process the user
may signal (`kill -9 -1`, `pkill -u root`, `killall5`) takes the agent and the hooks down with the
tool code, so it is the rule kill-every-process (docs/gates.md); signals to named processes are fine.

A mixin of CommandHandlers (see __init__.py); `self` is the ShellAnalyzer (../shell.py).
"""

from ..values import EMPTY_VAL

# pkill / killall patterns that match every process name.
_MATCH_ALL = frozenset({"", ".", ".*", "^", "$", "^.*", ".*$", "^.*$", ".+", "^.+$", "[^]*", "*"})

_PKILL_WITH_ARG = frozenset("gGPstuUFn")
_PKILL_LONG_WITH_ARG = (
    "--signal",
    "--pgroup",
    "--group",
    "--parent",
    "--session",
    "--terminal",
    "--euid",
    "--uid",
    "--pidfile",
    "--ns",
    "--nslist",
    "--cgroup",
)


class SignalCommands:
    def h_kill(self, argv, st, ctx):
        words = [a.known() for a in argv[1:]]
        operands, i = [], 0
        while i < len(words):
            w = words[i]
            if w is None:
                operands.append(None)
            elif w == "--":
                operands.extend(words[i + 1 :])
                break
            elif w in ("-s", "-n"):
                i += 1  # the signal's name or number
            elif w in ("-l", "-L", "--list", "--table"):
                return EMPTY_VAL  # lists signals
            elif w.startswith("-") and not _is_negative_pid(w, operands, words, i):
                pass  # -9, -KILL, -SIGTERM
            else:
                operands.append(w)
            i += 1
        if any(op is not None and op.strip() == "-1" for op in operands):
            self.e.block("kill-every-process", ctx.raw, note="pid -1 is every process the user may signal")
        return EMPTY_VAL

    def h_pkill(self, argv, st, ctx):
        words = [a.known() for a in argv[1:]]
        pattern, selectors, i = None, [], 0
        while i < len(words):
            w = words[i]
            if w is None:
                return EMPTY_VAL  # an unknown word may be the pattern: nothing certain to say
            if w == "--":
                pattern = words[i + 1] if i + 1 < len(words) else None
                break
            if w.startswith("--"):
                name = w.split("=", 1)[0]
                if name in _PKILL_LONG_WITH_ARG:
                    selectors.append(name)
                    if "=" not in w:
                        i += 1
            elif w.startswith("-") and len(w) > 1 and not w[1:].isdigit() and not w[1:].isupper():
                for j, letter in enumerate(w[1:]):
                    if letter in _PKILL_WITH_ARG:
                        selectors.append(letter)
                        if j == len(w) - 2:
                            i += 1
                        break
            elif w.startswith("-") and len(w) > 1:
                pass  # -9, -KILL
            elif pattern is None:
                pattern = w
            i += 1
        # With only a user, group or session selector and no pattern, or a pattern that matches
        # anything, pkill signals every process of that user: for root (or the sandbox's only
        # user), every process.
        if pattern is None and not selectors:
            return EMPTY_VAL  # pkill refuses to run without a pattern or a selector
        narrowing = set(selectors) - {"u", "U", "G", "g", "--euid", "--uid", "--group", "--signal", "s"}
        if (pattern is None or pattern in _MATCH_ALL) and not narrowing:
            self.e.block("kill-every-process", ctx.raw, note="the pattern matches every process")
        return EMPTY_VAL

    def h_killall(self, argv, st, ctx):
        words = [a.known() for a in argv[1:]]
        names, user, i = [], False, 0
        while i < len(words):
            w = words[i]
            if w is None:
                return EMPTY_VAL
            if w in ("-u", "--user"):
                user = True
                i += 1
            elif w.startswith("--user="):
                user = True
            elif w in ("-s", "--signal", "-o", "--older-than", "-y", "--younger-than", "-n", "--ns"):
                i += 1
            elif w.startswith("-") and len(w) > 1:
                pass
            else:
                names.append(w)
            i += 1
        regex = "-r" in words or "--regexp" in words
        if (user and not names) or (regex and any(n in _MATCH_ALL for n in names)):
            self.e.block("kill-every-process", ctx.raw, note="every process of the user")
        return EMPTY_VAL

    def h_killall5(self, argv, st, ctx):
        self.e.block("kill-every-process", ctx.raw, note="killall5 signals every process")
        return EMPTY_VAL


def _is_negative_pid(word, operands, words, index):
    """`kill -9 -1`: after a signal option, `-1` is a process group id (every process), not signal 1."""
    if word != "-1":
        return False
    # `kill -1 PID` sends SIGHUP; `kill -9 -1`, `kill -s KILL -1` and `kill -- -1` target pid -1.
    before = [w for w in words[:index]]
    return bool(before) and any(w is not None and w.startswith("-") for w in before)
