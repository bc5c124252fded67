"""The lexing of the expansions a shell word can hold: what a `$` opens (`$name`, `${...}` with its
operators, `$'...'`, `$"..."`, `$( )`, `$(( ))`), backticks, process substitution `<( )` / `>( )`,
and the `(( ))` of arithmetic. DollarLexer is a mixin of shlexer.Lexer; command substitutions
are parsed recursively by the Parser of shparse.py, which the lexer reaches through the
`parser_class` attribute (shparse imports this module, so this module cannot import it back).
"""

import re

from .escapes import CONTROL_ESCAPES, numeric_escape

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS = "@*#?$!-0123456789"


class DollarLexer:
    """Expansions inside a word. `self` is a Lexer; `type(self)` makes the lexers of nested text."""

    # The Parser class, set by shparse.py when it is imported.
    parser_class = None

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
            sub = self.parser_class(src, p + 2, self.depth + 1)
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
            sub = type(self)(rest, 0, self.depth + 1)
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
        node = self.parser_class(text, 0, self.depth + 1).parse_program()
        return ("cmd", node, quoted, text)

    def _procsub(self, direction):
        sub = self.parser_class(self.src, self.pos + 2, self.depth + 1)
        node = sub.parse_list()
        if sub.peek()[0] == "op" and sub.peek()[1] == ")":
            sub.next()
        self.pos = sub.lexer.pos
        return ("proc", node, direction)

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
        inner = type(self)(src[start:i], 0, self.depth + 1)
        subs = [p for p in inner.dquoted(stop=None) if p[0] == "cmd"]
        self.pos = i + len(closing)
        return ("arith", subs, quoted, src[start:i])


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
