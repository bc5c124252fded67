"""The argv a command handler runs with: its `command` through `/bin/sh -c` (docs/contract.md §4).

bash and upstream dash `exec` the last simple command of `sh -c COMMAND`; Debian's dash forks it,
then waits and exits after it. For a gate that is one more process to wake and tear down after the
gate's own exit, ~0.4 ms on every hook (docs/gates.md, "Prestart and workers"). A command that is
one external program with plain words is therefore run as `exec COMMAND`: what those shells do, and
the same program, arguments, PATH lookup and exit code. The differences are the ones of any shell
that execs: the program's parent is the agent rather than a shell, and a program killed by a signal
is reported with that signal (the exit code is 128 + N either way). Anything else (quotes,
expansions, redirections, several commands, a variable assignment, a shell builtin or keyword
first) runs exactly as written.
"""

import re

# Words /bin/sh takes literally: no quoting, expansion, globbing, redirection or comment.
_PLAIN_WORDS = re.compile(r"[A-Za-z0-9_./+,:@%=-]+(?:[ \t]+[A-Za-z0-9_./+,:@%=-]+)*")
# dash's reserved words and builtins: `exec` would look for a program of that name instead.
_NOT_A_PROGRAM = frozenset(
    """! { } case do done elif else esac fi for function if in select then until while
    . : [ alias bg break builtin cd chdir command continue echo eval exec exit export false fc fg
    getopts hash jobs kill let local printf pwd read readonly return set shift source test times
    trap true type typeset ulimit umask unalias unset wait""".split()
)


def hook_argv(command):
    """`/bin/sh -c COMMAND`, with `exec ` put before a command that is one plain external program."""
    words = command.strip(" \t")
    if _PLAIN_WORDS.fullmatch(words):
        first = words.split()[0]
        if "=" not in first and not first.startswith("-") and first not in _NOT_A_PROGRAM:
            return ["/bin/sh", "-c", "exec " + words]
    return ["/bin/sh", "-c", command]
