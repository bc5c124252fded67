"""git: the subcommands that discard work or history (reset --hard, clean -f, push --force, checkout
-- ., ...), and aliases that hide them.

A mixin of CommandHandlers (see __init__.py); `self` is the ShellAnalyzer (../shell.py)."""

import shlex

from ..shellutil import output_of, texts_of
from ..values import Val


GIT_GLOBAL_WITH_ARG = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix"}
)

WHOLE_TREE_PATHSPECS = frozenset({".", "./", ":/", ":/.", "*", ":(top)", ":(glob)*", "/", ":"})

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


class GitCommands:
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
