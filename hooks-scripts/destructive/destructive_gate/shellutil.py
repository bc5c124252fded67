"""Shared by the shell walk (shell.py) and the command handlers (the commands/ package): the script's
state, a command's context, and small helpers on Vals and argv lists."""

import re
import shlex

from .escapes import CONTROL_ESCAPES, numeric_escape
from .values import EMPTY_VAL, Unknown, Val

BIN_DIRS = frozenset({"/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"})
SHELLS = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "posh", "rbash", "lksh", "fish"}
)
PYTHON_RE = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")
FOREIGN = {
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"),
    "php": ("-r",),
    "lua": ("-e",),
}
AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
DOWNLOADERS_STDOUT = frozenset(
    {
        "fetch",
        "http",
        "https",
        "httpie",
        "lwp-request",
        "GET",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "telnet",
        "aria2c",
    }
)


class State:
    """What the script has set up so far. Files are global to the script, the rest per shell."""

    __slots__ = (
        "vars",
        "arrays",
        "funcs",
        "cwd",
        "dirstack",
        "positional",
        "argv0",
        "params_unknown",
        "vfs",
        "git_aliases",
        "active",
    )

    def __init__(self, cwd, vfs=None, git_aliases=None):
        self.vars, self.arrays, self.funcs = {}, {}, {}
        self.cwd = cwd
        self.dirstack = []
        self.positional = []
        self.argv0 = Val((Unknown("self", label="0"),))
        self.params_unknown = False
        self.vfs = {} if vfs is None else vfs
        self.git_aliases = {} if git_aliases is None else git_aliases
        self.active = set()

    def copy(self):
        c = State(self.cwd, self.vfs, self.git_aliases)
        c.vars, c.arrays, c.funcs = dict(self.vars), dict(self.arrays), dict(self.funcs)
        c.dirstack = list(self.dirstack)
        c.positional, c.argv0, c.params_unknown = list(self.positional), self.argv0, self.params_unknown
        c.active = set(self.active)
        return c


class Ctx:
    """How one simple command runs: its stdin, whether it is backgrounded or in a pipeline."""

    __slots__ = ("stdin", "bg", "piped", "raw")

    def __init__(self, stdin, bg, piped, raw):
        self.stdin, self.bg, self.piped, self.raw = stdin, bg, piped, raw


def output_of(label):
    return Val((Unknown("output", maybe_empty=True, label=label),))


def downloaded(label):
    return Val((Unknown("download", maybe_empty=True, label=label),))


def texts_of(vals):
    return [v.known() for v in vals]


def join_vals(vals, sep=" "):
    parts = []
    for i, v in enumerate(vals):
        if i:
            parts.append(sep)
        parts.extend(v.parts)
    return Val(parts)


def strip_newlines(val):
    parts = list(val.parts)
    while parts and isinstance(parts[-1], str):
        stripped = parts[-1].rstrip("\n")
        if stripped:
            parts[-1] = stripped
            break
        parts.pop()
    return Val(parts)


def to_bytes(text):
    return text.encode("utf-8", "surrogateescape")


def to_str(data):
    return data.decode("utf-8", "surrogateescape")


def render_argv(argv):
    out = []
    for v in argv:
        r = v.render()
        out.append(r if r and re.fullmatch(r"[\w@%+=:,./~*?\[\]{}$\u2026-]+", r) else shlex.quote(r))
    return " ".join(out)


def parse_opts(args, short_with_arg="", long_with_arg=(), stop_at_operand=False):
    """Split argv into (flags, values, operands). flags holds short letters and --long names;
    values maps an option to its argument. Unknown words are operands."""
    flags, values, operands = set(), {}, []
    i, n = 0, len(args)
    while i < n:
        a = args[i]
        s = a.known()
        if s is None or s == "-" or not s.startswith("-"):
            operands.append(a)
            i += 1
            if stop_at_operand:
                operands.extend(args[i:])
                break
            continue
        if s == "--":
            operands.extend(args[i + 1 :])
            break
        if s.startswith("--"):
            name, eq, value = s.partition("=")
            flags.add(name)
            if eq:
                values[name] = Val.of(value)
            elif name in long_with_arg and i + 1 < n:
                values[name] = args[i + 1]
                i += 1
            i += 1
            continue
        j = 1
        while j < len(s):
            ch = s[j]
            flags.add(ch)
            if ch in short_with_arg:
                rest = s[j + 1 :]
                if rest:
                    values[ch] = Val.of(rest)
                elif i + 1 < n:
                    values[ch] = args[i + 1]
                    i += 1
                break
            j += 1
        i += 1
    return flags, values, operands


def self_val(script):
    """$0 of a script file: the script itself, so that `bash "$0" &` inside it is recognised."""
    return Val((Unknown("self", label="0", candidates=[script]),))


def concat_vals(vals):
    if not vals:
        return EMPTY_VAL
    if len(vals) == 1:
        return vals[0]
    parts = []
    for v in vals:
        parts.extend(v.parts)
    if len(parts) > 256:
        return Val.unknown("output", maybe_empty=True)
    return Val(parts)


def map_known(val, fn):
    return Val([fn(p) if isinstance(p, str) else p for p in val.parts], val.glob)


def has_glob(text):
    return any(c in text for c in "*?[")


def val_replace(val, token, item):
    parts = []
    for p in val.parts:
        if isinstance(p, str) and token in p:
            pieces = p.split(token)
            for i, piece in enumerate(pieces):
                if i:
                    parts.extend(item.parts)
                parts.append(piece)
        else:
            parts.append(p)
    return Val(parts, val.glob or item.glob)


_ESC = CONTROL_ESCAPES


def unescape(text, printf):
    """Backslash escapes of echo -e / printf %b (printf=False) and printf formats (printf=True)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e in _ESC:
            out.append(_ESC[e])
            i += 2
        elif e in "xuU":
            i = numeric_escape(text, i, e, out)
        elif e == "0" and not printf:
            m = re.compile(r"[0-7]{0,3}").match(text, i + 2)
            out.append(chr(int(m.group(0) or "0", 8) & 0xFF))
            i = m.end()
        elif e in "01234567":
            m = re.compile(r"[0-7]{1,3}").match(text, i + 1)
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i = m.end()
        elif e == "c":
            break
        else:
            out.append("\\" + e)
            i += 2
    return "".join(out)
