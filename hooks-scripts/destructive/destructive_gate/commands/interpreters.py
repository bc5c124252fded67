"""Commands that run code in another interpreter or fetch it: sh/bash -c, python -c, perl/ruby/node
-e, awk, curl, wget and the like. Shell code is analysed again; foreign code is searched for exec
and delete calls.

A mixin of CommandHandlers (see __init__.py); `self` is the ShellAnalyzer (../shell.py)."""

import posixpath
import re
import shlex

from ..shellutil import (
    AWKS,
    FOREIGN,
    Ctx,
    State,
    downloaded,
    output_of,
    parse_opts,
    self_val,
    unescape,
)
from ..values import EMPTY_VAL, Val


def _url_basename(url):
    path = re.sub(r"^[a-z]+://[^/]*", "", url).split("?")[0].split("#")[0]
    return posixpath.basename(path)

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


class InterpreterCommands:
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
