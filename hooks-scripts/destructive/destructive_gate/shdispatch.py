"""Dispatch of a simple command once its words are expanded, for the shell walk (shell.py): to a
function the script defined, to the handler of a known command (commands/), to a script file
run by path, or, when the command name cannot be known, to the hypotheses that make it
dangerous. Also run_code, which analyses code handed to an interpreter (sh, python, perl ...).
CommandDispatch is a mixin of ShellAnalyzer.
"""

import posixpath

from .commands import HANDLERS, CommandHandlers
from .errors import Blocked
from .shellutil import BIN_DIRS, PYTHON_RE, Ctx, output_of, render_argv, self_val
from .values import EMPTY_VAL, SENT, Val


class CommandDispatch:
    """Runs a command's argv. `self` is the ShellAnalyzer (shell.py)."""

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
