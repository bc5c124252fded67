"""A tolerant lexer and parser for the sh/bash that agents write.

Why not `shlex` alone: shlex does POSIX quote removal well, but it knows nothing of `$( )`,
backticks, `${ }`, `$'...'`, process substitution, here-documents or bash's reserved words, and it
treats `#` inside a word as a comment (`echo x#; rm -rf /` would hide the rm). The gate must see
every command bash would run, so this module follows bash's own rules:

  * words keep their structure: literal text (and whether it was quoted), parameter expansions,
    command substitutions (parsed recursively), arithmetic, process substitutions, tildes;
  * commands are split on `;` `&` `&&` `||` `|` `|&` newlines, subshells, groups, and the compound
    commands (if/while/until/for/case/select/function, `[[ ]]`, `(( ))`);
  * here-documents are read after the line that opens them, with or without expansion.

It never raises on malformed input: bash runs a script line by line, so a syntax error later in
the text does not stop an earlier `rm -rf /`. Unbalanced quotes run to the end of the text and
stray closing tokens are skipped.
"""

import re

from .escapes import CONTROL_ESCAPES, numeric_escape

_ASSIGN_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS = "@*#?$!-0123456789"
_META = " \t\n;&|<>()"

# Longest first, so that `&&` wins over `&` and `<<-` over `<<`.
_OPERATORS = (
    ";;&", "&>>", "<<<", "<<-",
    ";;", ";&", "&&", "||", "|&", "&>", "<<", "<>", "<&", ">&", ">>", ">|",
    ";", "&", "|", "(", ")", "<", ">",
)  # fmt: skip
_REDIRECTS = frozenset({"&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">&", ">>", ">|", "<", ">"})

MAX_DEPTH = 40


class TooDeep(Exception):
    """Nesting deeper than any real script needs: treated by the gate as obfuscation."""


# ---------------------------------------------------------------- syntax tree


class Word:
    """A shell word. parts are tuples:
    ('lit', text, quoted) ('param', name, quoted, op, arg, index) ('cmd', node, quoted, src)
    ('arith', [cmd nodes], quoted, text) ('proc', node, direction) ('tilde', user) ('array', [Word])
    """

    __slots__ = ("parts", "src")

    def __init__(self, parts, src):
        self.parts = parts
        self.src = src

    def literal(self):
        """The text after quote removal when the word has no expansions, else None."""
        out = []
        for p in self.parts:
            if p[0] != "lit":
                return None
            out.append(p[1])
        return "".join(out)

    def reserved(self):
        """The word as a reserved-word candidate: only an unquoted plain literal can be one."""
        if len(self.parts) == 1 and self.parts[0][0] == "lit" and not self.parts[0][2]:
            return self.parts[0][1]
        return None

    def __repr__(self):  # pragma: no cover
        return "Word(%r)" % self.src


class Heredoc:
    __slots__ = ("delim", "quoted", "strip", "body", "parts")

    def __init__(self, delim, quoted, strip):
        self.delim, self.quoted, self.strip = delim, quoted, strip
        self.body = ""
        self.parts = None  # expansion parts when the delimiter was unquoted


class Redir:
    __slots__ = ("op", "fd", "target", "heredoc")

    def __init__(self, op, fd, target, heredoc=None):
        self.op, self.fd, self.target, self.heredoc = op, fd, target, heredoc


class Simple:
    __slots__ = ("assigns", "words", "redirs", "src")

    def __init__(self, assigns, words, redirs, src):
        self.assigns, self.words, self.redirs, self.src = assigns, words, redirs, src


class Pipeline:
    __slots__ = ("cmds", "negated", "src")

    def __init__(self, cmds, negated=False, src=""):
        self.cmds, self.negated, self.src = cmds, negated, src


class AndOr:
    __slots__ = ("pipelines",)

    def __init__(self, pipelines):
        self.pipelines = pipelines


class ListNode:
    """A sequence of and-or lists, each with its `background` flag (ended by `&`)."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


class Compound:
    """Subshell, group, if, while/until, for/select, case, function definition, [[ ]], (( )).

    kind  -- 'subshell' 'group' 'if' 'while' 'until' 'for' 'arithfor' 'case' 'func' 'cond' 'arith'
    lists -- the nested ListNodes, in source order (conditions and bodies alike)
    words -- words the construct expands itself (for-loop words, case subject, [[ ]] operands)
    """

    __slots__ = ("kind", "lists", "words", "name", "redirs", "body", "src", "over_params")

    def __init__(self, kind, lists=(), words=(), name=None, body=None, src=""):
        self.kind, self.lists, self.words, self.name, self.body, self.src = (
            kind,
            list(lists),
            list(words),
            name,
            body,
            src,
        )
        self.redirs = []
        self.over_params = False  # `for x; do`: iterates over "$@"


# ---------------------------------------------------------------- lexer


class Lexer:
    def __init__(self, src, pos=0, depth=0):
        if depth > MAX_DEPTH:
            raise TooDeep()
        self.src, self.pos, self.depth = src, pos, depth
        self.n = len(src)
        self.pending = []  # here-documents whose bodies start after the next newline

    # -- tokens: ('word', Word) ('op', str) ('redir', (op, fd)) ('nl', None) ('arith', parts) ('eof', None)

    def token(self):
        src, n = self.src, self.n
        while True:
            while self.pos < n and src[self.pos] in " \t":
                self.pos += 1
            if src.startswith("\\\n", self.pos):
                self.pos += 2
                continue
            if self.pos < n and src[self.pos] == "#":
                end = src.find("\n", self.pos)
                self.pos = n if end < 0 else end
                continue
            break
        if self.pos >= n:
            return ("eof", None, self.pos)
        start = self.pos
        c = src[start]
        if c == "\n":
            self.pos += 1
            self._read_heredocs()
            return ("nl", None, start)
        if src.startswith("((", start):
            parts = self._arith(start + 2, quoted=False, closing="))")
            if parts is not None:
                return ("arith", parts, start)
        if src.startswith(("<(", ">("), start):
            return ("word", self.word(), start)
        for op in _OPERATORS:
            if src.startswith(op, start):
                self.pos += len(op)
                if op in _REDIRECTS:
                    return ("redir", (op, None), start)
                return ("op", op, start)
        w = self.word()
        lit = w.literal()
        if lit is not None and lit.isdigit() and w.reserved() and self.pos < n and src[self.pos] in "<>":
            # `2>file`: a file descriptor number glued to a redirection operator.
            for op in _OPERATORS:
                if op in _REDIRECTS and src.startswith(op, self.pos):
                    self.pos += len(op)
                    return ("redir", (op, int(lit)), start)
        return ("word", w, start)

    # -- words

    def word(self, terminators=_META, in_param=False):
        src, n = self.src, self.n
        start = self.pos
        parts, buf = [], []

        def flush():
            if buf:
                parts.append(("lit", "".join(buf), False))
                buf.clear()

        while self.pos < n:
            c = src[self.pos]
            if c in terminators:
                if c in "<>" and src.startswith("(", self.pos + 1) and not parts and not buf:
                    parts.append(self._procsub(c))
                    continue
                if (
                    c == "("
                    and not parts
                    and buf
                    and _ASSIGN_RE.match("".join(buf))
                    and "".join(buf).endswith("=")
                ):
                    flush()
                    parts.append(("array", self._array()))
                    continue
                break
            if c == "\\":
                if src.startswith("\n", self.pos + 1):
                    self.pos += 2
                    continue
                flush()
                parts.append(("lit", src[self.pos + 1 : self.pos + 2], True))
                self.pos += 2
            elif c == "'":
                flush()
                end = src.find("'", self.pos + 1)
                end = n if end < 0 else end
                parts.append(("lit", src[self.pos + 1 : end], True))
                self.pos = end + 1
            elif c == '"':
                flush()
                self.pos += 1
                # `""` is a word of its own even though it holds nothing, as `''` is.
                parts.extend(self.dquoted(stop='"') or [("lit", "", True)])
            elif c == "$":
                flush()
                parts.extend(self.dollar(quoted=False))
            elif c == "`":
                flush()
                parts.append(self._backtick(quoted=False))
            elif c == "~" and not parts and not buf:
                self.pos += 1
                m = re.compile(r"[A-Za-z0-9_.-]*").match(src, self.pos)
                user = m.group(0)
                if self.pos + len(user) >= n or src[self.pos + len(user)] in "/" + terminators:
                    self.pos += len(user)
                    parts.append(("tilde", user))
                else:
                    buf.append("~")
            else:
                buf.append(c)
                self.pos += 1
        flush()
        return Word(parts, src[start : self.pos])

    def dquoted(self, stop):
        """Parts of a double-quoted string (or an unquoted here-document when stop is None)."""
        src, n = self.src, self.n
        parts, buf = [], []

        def flush():
            if buf:
                parts.append(("lit", "".join(buf), True))
                buf.clear()

        while self.pos < n:
            c = src[self.pos]
            if stop is not None and c == stop:
                self.pos += 1
                break
            if c == "\\" and self.pos + 1 < n:
                nxt = src[self.pos + 1]
                if nxt == "\n":
                    self.pos += 2
                    continue
                if nxt in '$`"\\' if stop is not None else nxt in "$`\\":
                    buf.append(nxt)
                    self.pos += 2
                    continue
                buf.append(c)
                self.pos += 1
            elif c == "$":
                flush()
                parts.extend(self.dollar(quoted=True))
            elif c == "`":
                flush()
                parts.append(self._backtick(quoted=True))
            else:
                buf.append(c)
                self.pos += 1
        flush()
        return parts

    def dollar(self, quoted):
        src, p = self.src, self.pos
        nxt = src[p + 1 : p + 2]
        if nxt == "'" and not quoted:
            end, text = _ansi_c(src, p + 2)
            self.pos = end
            return [("lit", text, True)]
        if nxt == '"' and not quoted:
            self.pos = p + 2
            return self.dquoted(stop='"')
        if src.startswith("((", p + 1):
            parts = self._arith(p + 3, quoted, closing="))")
            if parts is not None:
                return [parts]
        if nxt == "(":
            sub = Parser(src, p + 2, self.depth + 1)
            node = sub.parse_list()
            end = sub.lexer.pos
            if sub.peek()[0] == "op" and sub.peek()[1] == ")":
                sub.next()
                end = sub.lexer.pos
            self.pos = end
            return [("cmd", node, quoted, src[p + 2 : max(p + 2, end - 1)])]
        if nxt == "{":
            return [self._brace_param(quoted)]
        m = _NAME_RE.match(src, p + 1)
        if m:
            self.pos = m.end()
            return [("param", m.group(0), quoted, None, None, None)]
        if nxt and nxt in _SPECIAL_PARAMS:
            self.pos = p + 2
            return [("param", nxt, quoted, None, None, None)]
        self.pos = p + 1
        return [("lit", "$", quoted)]

    def _brace_param(self, quoted):
        src, n = self.src, self.n
        start = self.pos + 2
        end = _match_brace(src, start)
        self.pos = min(n, end + 1)
        body = src[start:end]
        op = arg = index = None
        if body.startswith("#") and len(body) > 1 and body[1] != "}":
            return ("param", body[1:], quoted, "len", None, None)
        indirect = body.startswith("!")
        if indirect:
            body = body[1:]
        m = _NAME_RE.match(body)
        if m:
            name, rest = m.group(0), body[m.end() :]
        elif body[:1] and body[0] in _SPECIAL_PARAMS:
            name, rest = body[0], body[1:]
        else:
            return ("param", body, quoted, "bad", None, None)
        if rest.startswith("["):
            close = rest.find("]")
            close = len(rest) if close < 0 else close
            index, rest = rest[1:close], rest[close + 1 :]
        for cand in (
            ":-",
            ":=",
            ":+",
            ":?",
            "##",
            "%%",
            "//",
            "/#",
            "/%",
            "^^",
            ",,",
            "-",
            "=",
            "+",
            "?",
            "#",
            "%",
            "/",
            "^",
            ",",
            ":",
            "@",
        ):
            if rest.startswith(cand):
                op, rest = cand, rest[len(cand) :]
                break
        if op is None and rest:
            op = "bad"
        if op is not None and op not in ("bad", "@", ":"):
            sub = Lexer(rest, 0, self.depth + 1)
            if op in ("//", "/#", "/%", "/"):
                pat = sub.word(terminators="/", in_param=True)
                rep = None
                if sub.pos < sub.n:
                    sub.pos += 1
                    rep = sub.word(terminators="", in_param=True)
                arg = (pat, rep)
            else:
                arg = sub.word(terminators="", in_param=True)
        elif op == ":":
            arg = rest
        if indirect:
            op = "indirect" if op is None else op
        return ("param", name, quoted, op, arg, index)

    def _backtick(self, quoted):
        src, n = self.src, self.n
        i = self.pos + 1
        out = []
        while i < n and src[i] != "`":
            if src[i] == "\\" and i + 1 < n and src[i + 1] in "`$\\" + ('"' if quoted else ""):
                out.append(src[i + 1])
                i += 2
                continue
            out.append(src[i])
            i += 1
        self.pos = min(n, i + 1)
        text = "".join(out)
        node = Parser(text, 0, self.depth + 1).parse_program()
        return ("cmd", node, quoted, text)

    def _procsub(self, direction):
        sub = Parser(self.src, self.pos + 2, self.depth + 1)
        node = sub.parse_list()
        if sub.peek()[0] == "op" and sub.peek()[1] == ")":
            sub.next()
        self.pos = sub.lexer.pos
        return ("proc", node, direction)

    def _array(self):
        self.pos += 1
        words = []
        while True:
            tok = self.token()
            if tok[0] in ("eof",) or (tok[0] == "op" and tok[1] == ")"):
                break
            if tok[0] == "word":
                words.append(tok[1])
        return words

    def _arith(self, start, quoted, closing):
        """`(( ... ))` / `$(( ... ))`: only command substitutions inside matter to the gate."""
        src = self.src
        depth, i = 0, start
        while i < self.n:
            c = src[i]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    if src.startswith(closing, i):
                        break
                    return None  # `((a) (b))` is two subshells, not arithmetic
                depth -= 1
            elif c in "'\"":
                j = src.find(c, i + 1)
                i = self.n if j < 0 else j
            i += 1
        else:
            return None
        inner = Lexer(src[start:i], 0, self.depth + 1)
        subs = [p for p in inner.dquoted(stop=None) if p[0] == "cmd"]
        self.pos = i + len(closing)
        return ("arith", subs, quoted, src[start:i])

    # -- here-documents

    def register_heredoc(self, word, strip):
        quoted = any(p[0] == "lit" and p[2] for p in word.parts) or any(p[0] != "lit" for p in word.parts)
        delim = (
            "".join(p[1] for p in word.parts if p[0] == "lit") if word.literal() is None else word.literal()
        )
        hd = Heredoc(delim, quoted, strip)
        self.pending.append(hd)
        return hd

    def _read_heredocs(self):
        src, n = self.src, self.n
        for hd in self.pending:
            lines = []
            while self.pos < n:
                end = src.find("\n", self.pos)
                line = src[self.pos : n if end < 0 else end]
                self.pos = n if end < 0 else end + 1
                check = line.lstrip("\t") if hd.strip else line
                if check == hd.delim:
                    break
                lines.append(check)
            hd.body = "".join(line + "\n" for line in lines)
            if not hd.quoted:
                hd.parts = Lexer(hd.body, 0, self.depth + 1).dquoted(stop=None)
        self.pending = []


def _match_brace(src, i):
    """Index of the `}` closing a `${` whose body starts at i."""
    depth, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = src.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return n


# $'...' also knows \\?.
_ANSI_SIMPLE = {**CONTROL_ESCAPES, "?": "?"}


def _ansi_c(src, i):
    """Decode bash's $'...' quoting from index i (just after the opening quote)."""
    out, n = [], len(src)
    while i < n and src[i] != "'":
        c = src[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = src[i + 1]
        if e in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[e])
            i += 2
        elif e in "xuU":
            i = numeric_escape(src, i, e, out)
        elif e in "01234567":
            m = re.compile(r"[0-7]{1,3}").match(src, i + 1)
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i = m.end()
        elif e == "c" and i + 2 < n:
            out.append(chr(ord(src[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + e)
            i += 2
    return i + 1, "".join(out)


# ---------------------------------------------------------------- parser

_LIST_STOPS = frozenset({"then", "elif", "else", "fi", "do", "done", "esac", "}"})
_CASE_ENDS = (";;", ";&", ";;&")


class Parser:
    def __init__(self, src, pos=0, depth=0):
        if depth > MAX_DEPTH:
            raise TooDeep()
        self.src = src
        self.depth = depth
        self.lexer = Lexer(src, pos, depth)
        self._peek = None

    def peek(self):
        if self._peek is None:
            self._peek = self.lexer.token()
        return self._peek

    def next(self):
        tok = self.peek()
        self._peek = None
        return tok

    def _is_word(self, tok, *texts):
        return tok[0] == "word" and tok[1].reserved() in texts

    def _skip_newlines(self):
        while self.peek()[0] == "nl":
            self.next()

    def _expect(self, text):
        self._skip_newlines()
        if self._is_word(self.peek(), text):
            self.next()

    def parse_program(self):
        """The whole text; stray closers (`)`, `fi`, `done`...) are skipped, never fatal."""
        items = []
        while True:
            node = self.parse_list()
            items.extend(node.items)
            if self.peek()[0] == "eof":
                return ListNode(items)
            self.next()

    def parse_list(self):
        """And-or lists up to the end of the text, a `)`, a `;;` or a closing reserved word
        (then, fi, done, esac, `}` ...), which the caller consumes (or skips, if stray)."""
        items = []
        while True:
            tok = self.peek()
            kind = tok[0]
            if kind == "eof":
                break
            if kind == "nl" or (kind == "op" and tok[1] in (";", "&")):
                self.next()
                continue
            if kind == "op" and (tok[1] == ")" or tok[1] in _CASE_ENDS):
                break
            if kind == "word" and tok[1].reserved() in _LIST_STOPS:
                break
            ao = self.parse_and_or()
            if ao is None:
                self.next()  # an unparseable token: skip it so that parsing always advances
                continue
            bg = False
            tok = self.peek()
            if tok[0] == "op" and tok[1] in (";", "&"):
                bg = tok[1] == "&"
                self.next()
            items.append((ao, bg))
        return ListNode(items)

    def parse_and_or(self):
        first = self.parse_pipeline()
        if first is None:
            return None
        pipelines = [first]
        while self.peek()[0] == "op" and self.peek()[1] in ("&&", "||"):
            self.next()
            self._skip_newlines()
            nxt = self.parse_pipeline()
            if nxt is None:
                break
            pipelines.append(nxt)
        return AndOr(pipelines)

    def parse_pipeline(self):
        start = self.peek()[2]
        negated = False
        while True:
            tok = self.peek()
            if self._is_word(tok, "!"):
                negated = True
                self.next()
            elif self._is_word(tok, "time"):
                self.next()
                if self._is_word(self.peek(), "-p"):
                    self.next()
            else:
                break
        cmd = self.parse_command()
        if cmd is None:
            return None
        cmds = [cmd]
        while self.peek()[0] == "op" and self.peek()[1] in ("|", "|&"):
            self.next()
            self._skip_newlines()
            nxt = self.parse_command()
            if nxt is None:
                break
            cmds.append(nxt)
        src = self.src[start : self.lexer.pos if self._peek is None else self._peek[2]].strip()
        return Pipeline(cmds, negated, src)

    def parse_command(self):
        tok = self.peek()
        kind, start = tok[0], tok[2]
        node = None
        if kind == "word":
            r = tok[1].reserved()
            if r == "{":
                self.next()
                body = self.parse_list()
                self._expect("}")
                node = Compound("group", [body])
            elif r == "if":
                node = self._parse_if()
            elif r in ("while", "until"):
                self.next()
                cond = self.parse_list()
                self._expect("do")
                body = self.parse_list()
                self._expect("done")
                node = Compound(r, [cond, body])
            elif r in ("for", "select"):
                node = self._parse_for()
            elif r == "case":
                node = self._parse_case()
            elif r == "function":
                self.next()
                name = self.next()
                if self.peek()[0] == "op" and self.peek()[1] == "(":
                    self.next()
                    if self.peek()[0] == "op" and self.peek()[1] == ")":
                        self.next()
                self._skip_newlines()
                body = self.parse_command()
                fname = name[1].literal() if name[0] == "word" else None
                node = Compound("func", name=fname, body=body)
            elif r == "[[":
                self.next()
                words = []
                while True:
                    t = self.peek()
                    if t[0] == "eof" or self._is_word(t, "]]"):
                        break
                    self.next()
                    if t[0] == "word":
                        words.append(t[1])
                self._expect("]]")
                node = Compound("cond", words=words)
            elif r in _LIST_STOPS or r == "in":
                return None
            else:
                node = self._parse_simple()
        elif kind == "op" and tok[1] == "(":
            self.next()
            body = self.parse_list()
            if self.peek()[0] == "op" and self.peek()[1] == ")":
                self.next()
            node = Compound("subshell", [body])
        elif kind == "arith":
            self.next()
            node = Compound("arith", words=[Word([tok[1]], "")])
        elif kind == "redir":
            node = self._parse_simple()
        else:
            return None
        if isinstance(node, Compound):
            while self.peek()[0] == "redir":
                node.redirs.append(self._parse_redirect())
            end = self.peek()[2]
            node.src = self.src[start:end].strip()
        return node

    def _parse_simple(self):
        start = self.peek()[2]
        assigns, words, redirs = [], [], []
        end = start
        while True:
            tok = self.peek()
            if tok[0] == "word":
                w = tok[1]
                if not words and _ASSIGN_RE.match(w.src):
                    self.next()
                    assigns.append(_split_assignment(w))
                    end = self.lexer.pos
                    continue
                self.next()
                end = self.lexer.pos
                if not words and not assigns and self.peek()[0] == "op" and self.peek()[1] == "(":
                    # `name() compound`: a function definition.
                    self.next()
                    if self.peek()[0] == "op" and self.peek()[1] == ")":
                        self.next()
                    self._skip_newlines()
                    body = self.parse_command()
                    return Compound("func", name=w.literal(), body=body, src=self.src[start : self.lexer.pos])
                words.append(w)
            elif tok[0] == "redir":
                redirs.append(self._parse_redirect())
                end = self.lexer.pos
            else:
                break
        if not words and not assigns and not redirs:
            return None
        return Simple(assigns, words, redirs, self.src[start:end].strip())

    def _parse_redirect(self):
        op, fd = self.next()[1]
        target = None
        heredoc = None
        tok = self.peek()
        if tok[0] == "word":
            self.next()
            target = tok[1]
            if op in ("<<", "<<-"):
                heredoc = self.lexer.register_heredoc(target, strip=op == "<<-")
        return Redir(op, fd, target, heredoc)

    def _parse_if(self):
        self.next()
        lists = [self.parse_list()]
        self._expect("then")
        lists.append(self.parse_list())
        while True:
            self._skip_newlines()
            tok = self.peek()
            if self._is_word(tok, "elif"):
                self.next()
                lists.append(self.parse_list())
                self._expect("then")
                lists.append(self.parse_list())
            elif self._is_word(tok, "else"):
                self.next()
                lists.append(self.parse_list())
            else:
                break
        self._expect("fi")
        return Compound("if", lists)

    def _parse_for(self):
        self.next()
        tok = self.peek()
        if tok[0] == "arith":
            self.next()
            arith = tok[1]
            self._skip_sep()
            body = self._loop_body()
            node = Compound("arithfor", [body], words=[Word([arith], "")])
            return node
        name = self.next()
        var = name[1].literal() if name[0] == "word" else None
        self._skip_newlines()
        words = None
        if self._is_word(self.peek(), "in"):
            self.next()
            words = []
            while self.peek()[0] == "word":
                words.append(self.next()[1])
        self._skip_sep()
        body = self._loop_body()
        node = Compound("for", [body], words=words or [], name=var)
        node.over_params = words is None
        return node

    def _skip_sep(self):
        while self.peek()[0] == "nl" or (self.peek()[0] == "op" and self.peek()[1] == ";"):
            self.next()

    def _loop_body(self):
        self._skip_newlines()
        if self._is_word(self.peek(), "{"):
            self.next()
            body = self.parse_list()
            self._expect("}")
            return body
        self._expect("do")
        body = self.parse_list()
        self._expect("done")
        return body

    def _parse_case(self):
        self.next()
        subject = self.next()
        words = [subject[1]] if subject[0] == "word" else []
        self._skip_newlines()
        self._expect("in")
        lists = []
        while True:
            self._skip_newlines()
            tok = self.peek()
            if tok[0] == "eof" or self._is_word(tok, "esac"):
                break
            if tok[0] == "op" and tok[1] == "(":
                self.next()
            while True:  # patterns up to `)`
                t = self.next()
                if t[0] == "eof" or (t[0] == "op" and t[1] == ")"):
                    break
                if t[0] == "word":
                    words.append(t[1])
            lists.append(self.parse_list())
            if self.peek()[0] == "op" and self.peek()[1] in _CASE_ENDS:
                self.next()
            elif not self._is_word(self.peek(), "esac") and self.peek()[0] != "eof":
                if self.peek()[0] == "op" and self.peek()[1] == ")":
                    self.next()  # tolerate a stray `)`
                elif self.peek()[0] != "word":
                    self.next()
        self._expect("esac")
        return Compound("case", lists, words=words)


def _split_assignment(word):
    """`NAME=value` -> (name, append, value parts). The value keeps its quoting structure."""
    m = _ASSIGN_RE.match(word.src)
    prefix_len = m.end()
    name, append = m.group(1), bool(m.group(3))
    parts, skipped = [], 0
    for p in word.parts:
        if skipped < prefix_len and p[0] == "lit" and not p[2]:
            text = p[1]
            take = min(len(text), prefix_len - skipped)
            skipped += take
            if take < len(text):
                parts.append(("lit", text[take:], False))
            continue
        parts.append(p)
    # A `~` right after `=` is expanded like one at the start of a word.
    if parts and parts[0][0] == "lit" and not parts[0][2] and parts[0][1].startswith("~"):
        text = parts[0][1]
        m2 = re.compile(r"~([A-Za-z0-9_.-]*)(?=/|$)").match(text)
        if m2:
            rest = text[m2.end() :]
            parts = [("tilde", m2.group(1))] + ([("lit", rest, False)] if rest else []) + parts[1:]
    return name, append, Word(parts, word.src)


def parse(text):
    return Parser(text).parse_program()
