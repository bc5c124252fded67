"""The tokenizer of shparse.py: operators, redirections, newlines and words, following bash's
rules for quoting (backslash, single and double quotes), comments (`#` only at the start of a
word), line continuations, tildes, array literals, here-documents (whose bodies are read after
the line that opens them) and the split of a `NAME=value` word. The expansions inside a word are
lexed by its DollarLexer mixin (shdollar.py).
"""

import re

from .shdollar import DollarLexer
from .shnodes import MAX_DEPTH, Heredoc, TooDeep, Word

_ASSIGN_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=")
_META = " \t\n;&|<>()"

# Longest first, so that `&&` wins over `&` and `<<-` over `<<`.
_OPERATORS = (
    ";;&", "&>>", "<<<", "<<-",
    ";;", ";&", "&&", "||", "|&", "&>", "<<", "<>", "<&", ">&", ">>", ">|",
    ";", "&", "|", "(", ")", "<", ">",
)  # fmt: skip
_REDIRECTS = frozenset({"&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">&", ">>", ">|", "<", ">"})


class Lexer(DollarLexer):
    """Tokens of src from pos, for the Parser; depth counts the nesting of substitutions."""

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
