"""Helpers of the word expansion (shwords.py) that need no script state: field splitting on IFS
(_FieldBuilder), brace expansion, the `#` `%` `/` pattern operators of `${...}` on glob patterns,
and constant arithmetic (`$((7*3-1))`) computed as bash would.
"""

import ast
import re

from .shellutil import has_glob
from .values import Unknown, Val

_CONSTANT_ARITH = re.compile(r"^[0-9\s+\-*/%()]*$")


def _arith_value(part):
    """`$(( ))` of constants only (`$((7*3-1))`) is known, as bash computes it; anything with a
    variable, an assignment or a command substitution stays unknown."""
    text = part[3] if len(part) > 3 else None
    if part[1] or text is None or not _CONSTANT_ARITH.match(text) or not text.strip():
        return Val.unknown("arith")
    try:
        value = _eval_int(ast.parse(text.strip(), mode="eval").body, 0)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return Val.unknown("arith")
    return Val.of(str(value))


def _eval_int(node, depth):
    """Integer arithmetic as bash does it (64-bit, division and remainder toward zero)."""
    if depth > 50:
        raise ValueError("too deep")
    if isinstance(node, ast.Constant) and type(node.value) is int:
        # bash reads a leading 0 as octal; python refuses `010`, so only plain decimals get here.
        return _wrap(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval_int(node.operand, depth + 1)
        return _wrap(-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod)):
        left, right = _eval_int(node.left, depth + 1), _eval_int(node.right, depth + 1)
        if isinstance(node.op, ast.Add):
            return _wrap(left + right)
        if isinstance(node.op, ast.Sub):
            return _wrap(left - right)
        if isinstance(node.op, ast.Mult):
            return _wrap(left * right)
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
        return _wrap(quotient if isinstance(node.op, ast.Div) else left - right * quotient)
    raise ValueError("not constant arithmetic")


def _wrap(value):
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


_SPLITTERS = {}


def _splitter(ifs):
    """The field delimiters of an IFS, as bash reads them: a run of IFS whitespace, or one other IFS
    character with the IFS whitespace around it."""
    rx = _SPLITTERS.get(ifs)
    if rx is None:
        white = "".join(c for c in ifs if c in " \t\n")
        other = "".join(c for c in ifs if c not in " \t\n")
        ws = "[" + re.escape(white) + "]*" if white else ""
        alternatives = []
        if other:
            alternatives.append(ws + "[" + re.escape(other) + "]" + ws)
        if white:
            alternatives.append("[" + re.escape(white) + "]+")
        rx = _SPLITTERS[ifs] = re.compile("|".join(alternatives))
    return rx


class _FieldBuilder:
    """Assembles expanded words into fields the way bash splits them."""

    def __init__(self, ifs):
        self.ifs = ifs
        self.fields = []
        self.cur = []
        self.glob = False
        self.quoted = False
        self.content = None

    def literal(self, text, quoted):
        if quoted:
            self.quoted = True
        elif has_glob(text):
            self.glob = True
        self.cur.append(text)

    def quoted_value(self, val):
        self.cur.extend(val.parts)

    def procsub(self, val):
        self.cur.extend(val.parts)
        self.content = val.content

    def value(self, val, quoted):
        if quoted:
            self.quoted = True
            self.cur.extend(val.parts)
            return
        if val.glob:
            self.glob = True
        if not self.ifs:
            self.cur.extend(val.parts)
            return
        splitter = _splitter(self.ifs)
        for part in val.parts:
            if isinstance(part, Unknown):
                self.cur.append(part)
                continue
            if has_glob(part):
                self.glob = True
            at = 0
            for m in splitter.finditer(part):
                if m.start() > at:
                    self.cur.append(part[at : m.start()])
                # A delimiter with a non-whitespace IFS character (`,` of IFS=', ') ends a field
                # even when it is empty (`a,,b` is three fields); IFS whitespace alone does not.
                self._break(force=bool(m.group(0).strip(" \t\n")))
                at = m.end()
            if at < len(part):
                self.cur.append(part[at:])

    def split_fields(self, vals):
        """ "$@": each positional parameter is a field of its own."""
        self.quoted = True
        for i, v in enumerate(vals):
            if i > 0:
                self._break(force=True)
                self.quoted = True
            self.cur.extend(v.parts)
        if not vals:
            self.quoted = bool(self.cur)

    def _break(self, force=False):
        if self.cur or force:
            self.fields.append(Val(self.cur, self.glob))
        self.cur = []
        # Quotes keep an empty field only in the field they are in: `"a"$v` with v=' ' is one field.
        self.quoted = False

    def finish(self):
        if self.cur or self.quoted:
            self.fields.append(Val(self.cur, self.glob, self.content))
        return self.fields


def _brace_expand(text, limit=64):
    """a{b,c}d -> abd acd (comma lists, nested; ranges are left alone)."""
    depth, start = 0, -1
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : i]
                alts, d, cur = [], 0, []
                for ch in inner:
                    if ch == "," and d == 0:
                        alts.append("".join(cur))
                        cur = []
                        continue
                    d += ch == "{"
                    d -= ch == "}"
                    cur.append(ch)
                alts.append("".join(cur))
                if len(alts) < 2:
                    continue
                out = []
                for alt in alts:
                    out.extend(_brace_expand(text[:start] + alt + text[i + 1 :], limit))
                    if len(out) >= limit:
                        break
                return out[:limit]
    return [text]


def _glob_re(pattern):
    import fnmatch

    return fnmatch.translate(pattern)[4:-3]  # strip (?s: ... )\Z


def _trim(text, pat, op):
    rx = _glob_re(pat)
    if op in ("#", "##"):
        cands = [i for i in range(len(text) + 1) if re.fullmatch(rx, text[:i], re.S)]
        if not cands:
            return text
        i = cands[-1] if op == "##" else cands[0]
        return text[i:]
    cands = [i for i in range(len(text) + 1) if re.fullmatch(rx, text[i:], re.S)]
    if not cands:
        return text
    i = cands[0] if op == "%%" else cands[-1]
    return text[:i]


def _replace(text, pat, rep, op):
    if not pat:
        return text
    rx = _glob_re(pat)
    if op == "/#":
        return re.sub("^(?:" + rx + ")", lambda m: rep, text, count=1, flags=re.S)
    if op == "/%":
        return re.sub("(?:" + rx + ")$", lambda m: rep, text, count=1, flags=re.S)
    return re.sub(rx, lambda m: rep, text, count=0 if op == "//" else 1, flags=re.S)
