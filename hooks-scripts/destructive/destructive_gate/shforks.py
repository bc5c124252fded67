"""Fork-bomb detection for the shell walk (shell.py): a function that calls itself in a pipeline
or in the background (`:(){ :|:& };:` and every renamed variant), and an endless loop that
starts background jobs. ForkBombChecks is a mixin of ShellAnalyzer.
"""

import re

from . import shparse


class ForkBombChecks:
    """Checks run where the walk meets a function or a loop. `self` is the ShellAnalyzer."""

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
