"""Property test of the shell parser, with bash itself as the oracle (docs/gates.md, Tests).

Random commands (quoting, escapes, parameter and command expansion, arithmetic, brace and tilde
expansion, redirections, pipelines, `&&`/`;` lists) end in a call of `argv WORDS...`. bash runs each
with `argv` defined to print its arguments NUL-separated; the gate's shell analyzer walks the same
text with `argv` recorded instead of run. Where the gate resolves every word, the words must be
bash's, in order; where it cannot resolve a word (an Unknown), that is allowed only for the
constructs it is meant to leave open (globs), never for ones it claims to follow.

GATE_PROPERTY_SEED (default 20261201) and GATE_PROPERTY_COUNT (default 2000) make a run
reproducible; a failure prints the seed, the case number and the command.
"""

import os
import random
import subprocess
import unittest

from tests.support import engine

SEED = int(os.environ.get("GATE_PROPERTY_SEED", "20261201"))
COUNT = int(os.environ.get("GATE_PROPERTY_COUNT", "2000"))
BATCH = 200
HOME = "/workspace"

PLAIN = "abcxyzABC019._-/=+,:@%"
SQ_CHARS = "ab c$\\\"*?{}~;|&<>()#`!\t"
DQ_SAFE = "ab c*?'{}~;|&<>()#\t"


class Gen:
    """Random commands from one seeded generator."""

    def __init__(self, rng):
        self.r = rng
        self.vars = []

    def plain(self):
        return "".join(self.r.choice(PLAIN) for _ in range(self.r.randint(1, 5)))

    def squoted(self):
        return "'" + "".join(self.r.choice(SQ_CHARS) for _ in range(self.r.randint(0, 6))) + "'"

    def dq_piece(self):
        r = self.r
        kind = r.randrange(8)
        if kind == 0 and self.vars:
            return "$" + r.choice(self.vars)
        if kind == 1 and self.vars:
            return "${%s}" % r.choice(self.vars)
        if kind == 2:
            return "\\" + r.choice('"$\\`')
        if kind == 3:
            return "$(echo %s)" % self.plain()
        if kind == 4:
            return "$((%d+%d))" % (r.randint(0, 9), r.randint(0, 9))
        if kind == 5:
            return "\\" + r.choice("abn")  # a backslash before another character stays
        return "".join(r.choice(DQ_SAFE) for _ in range(r.randint(1, 4)))

    def dquoted(self):
        return '"' + "".join(self.dq_piece() for _ in range(self.r.randint(0, 3))) + '"'

    def ansi_c(self):
        pieces = ["a", " ", "\\n", "\\t", "\\x41", "\\101", "\\'", '\\"', "\\\\", "b"]
        return "$'" + "".join(self.r.choice(pieces) for _ in range(self.r.randint(0, 4))) + "'"

    def escape(self):
        return "\\" + self.r.choice(" $'\"*\\;|&<>(){}#a")

    def expansion(self):
        r = self.r
        kind = r.randrange(9)
        if "@" in self.vars and r.randrange(4) == 0:
            return r.choice(['"$@"', "$@", '"$*"', "$*", "$1", "$#", '"${@}"', "x\"$@\"y"])
        if self.vars and kind <= 3:
            v = r.choice(self.vars)
            return r.choice(["$" + v, "${%s}" % v, "${%s:-dflt}" % v, "${#%s}" % v, "${%s/a/Z}" % v, "${%s#?}" % v])
        if kind == 4:
            ops = "+-*/%"
            return "$((%d%s%d %s -%d))" % (
                r.randint(0, 99), r.choice(ops), r.randint(1, 9), r.choice(ops), r.randint(1, 9)
            )
        if kind == 5:
            return "$(echo %s %s)" % (self.plain(), self.plain())
        if kind == 6:
            return "`echo %s`" % self.plain()
        if kind == 7:
            return "${unset_%d:-%s}" % (r.randint(0, 9), self.plain())
        return "$(printf %%s %s)" % self.squoted()

    def word(self):
        r = self.r
        pieces = []
        for _ in range(r.randint(1, 3)):
            kind = r.randrange(8)
            pieces.append(
                [self.plain, self.squoted, self.dquoted, self.ansi_c, self.escape, self.expansion, self.plain, self.dquoted][
                    kind
                ]()
            )
        word = "".join(pieces)
        roll = r.randrange(20)
        if roll == 0:
            word = "~" + r.choice(["", "/" + self.plain()])
        elif roll == 1:
            word = "%s{%s,%s}%s" % (self.plain(), self.plain(), self.plain(), r.choice(["", self.plain()]))
        return word

    def assignment(self):
        name = "v%d" % len(self.vars)
        value = self.r.choice([self.squoted, self.dquoted, self.plain, self.ansi_c])()
        self.vars.append(name)
        return "%s=%s" % (name, value)

    def redirection(self):
        return self.r.choice(
            ["2>/dev/null", ">/dev/null", "</dev/null", ">>out.txt", "2>&1", ">out.txt", "<<<%s" % self.plain(), "1>&2"]
        )

    def command(self):
        r = self.r
        self.vars = []
        prefix = [self.assignment() for _ in range(r.randint(0, 3))]
        if r.randrange(5) == 0:
            # positional parameters: "$@" is one word per parameter, $* and $@ unquoted are split
            prefix.append("set -- " + " ".join(self.word() for _ in range(r.randint(0, 3))))
            self.vars.extend(["@", "*", "1", "#"])
        if r.randrange(8) == 0:
            prefix.append("IFS=%s" % r.choice(["':'", "', '", "''", "'x'"]))
        words = [self.word() for _ in range(r.randint(0, 5))]
        redirs = [self.redirection() for _ in range(r.randint(0, 2))]
        parts = ["argv"] + words
        for redir in redirs:
            parts.insert(r.randint(1, len(parts)), redir)
        call = " ".join(parts)
        shape = r.randrange(6)
        if shape == 1:
            call = "echo %s | %s" % (self.plain(), call)
        elif shape == 2:
            call = "true && %s" % call
        elif shape == 3:
            call = "%s | cat" % call
        elif shape == 4:
            call = "{ %s; }" % call
        return "; ".join(prefix + [call]) if prefix else call


def bash_words(commands, workdir):
    """The argv of each command's `argv` call as bash sees it (None when bash did not call it)."""
    lines = ['argv() { for a in "$@"; do printf "%s\\0" "$a" >&3; done; }', "exec 3>&1 1>/dev/null 2>/dev/null"]
    for command in commands:
        lines.append("printf '\\1' >&3; ( %s\n)" % command)
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "\n".join(lines)],
        cwd=workdir,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": HOME, "LC_ALL": "C"},
        stdout=subprocess.PIPE,
        check=False,
    )
    chunks = result.stdout.decode("utf-8", "surrogateescape").split("\x01")[1:]
    if len(chunks) != len(commands):
        raise AssertionError("bash ran %d of %d commands" % (len(chunks), len(commands)))
    return [chunk.split("\x00")[:-1] if chunk else [] for chunk in chunks]


def gate_words(command):
    """The argv of the `argv` calls as the gate resolves them: a list of str or None (unknown)."""
    e = engine()
    seen = []
    original = e.shell.dispatch

    def dispatch(argv, st, ctx):
        if argv and argv[0].known() == "argv":
            # A glob field is a pattern the gate knows as one (bash would match it against files).
            seen.append([None if v.glob else v.known() for v in argv[1:]])
            from destructive_gate.values import EMPTY_VAL

            return EMPTY_VAL
        return original(argv, st, ctx)

    e.shell.dispatch = dispatch
    e.shell.analyze_top(command, HOME)
    return seen


class ParserAgainstBash(unittest.TestCase):
    def test_words_match_bash(self):
        import tempfile

        rng = random.Random(SEED)
        gen = Gen(rng)
        commands = [gen.command() for _ in range(COUNT)]
        failures = []
        resolved = 0
        with tempfile.TemporaryDirectory() as workdir:
            expected = []
            for start in range(0, COUNT, BATCH):
                expected.extend(bash_words(commands[start : start + BATCH], workdir))
        for index, (command, want) in enumerate(zip(commands, expected)):
            try:
                calls = gate_words(command)
            except Exception as err:  # noqa: BLE001 - reported with the case
                failures.append("#%d %r: gate raised %s: %s" % (index, command, type(err).__name__, err))
                continue
            if len(calls) != 1:
                failures.append("#%d %r: the gate saw %d argv calls" % (index, command, len(calls)))
                continue
            got = calls[0]
            if None in got:
                continue
            resolved += 1
            if got != want:
                failures.append("#%d %r:\n    bash: %r\n    gate: %r" % (index, command, want, got))
        report = "seed %d, %d commands, %d fully resolved, %d mismatches" % (SEED, COUNT, resolved, len(failures))
        print("\n" + report)
        self.assertEqual(failures, [], report + ":\n" + "\n".join(failures[:15]))
        # Most generated commands have nothing the gate must leave open: it should resolve them.
        self.assertGreater(resolved, COUNT * 0.8, report)


if __name__ == "__main__":
    unittest.main()
