"""Numeric backslash escapes shared by the quoting decoders: bash's $'...' and echo -e / printf."""

import re

# One-character escapes that echo -e, printf and bash's $'...' all know.
CONTROL_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
}

_DIGITS = {
    "x": re.compile(r"[0-9a-fA-F]{1,2}"),
    "u": re.compile(r"[0-9a-fA-F]{1,4}"),
    "U": re.compile(r"[0-9a-fA-F]{1,8}"),
}


def numeric_escape(text, i, kind, out):
    """Decodes \\xHH, \\uHHHH or \\UHHHHHHHH whose backslash is at text[i]; appends the character
    to `out` and returns the index just after the escape. Without digits it stays literal."""
    m = _DIGITS[kind].match(text, i + 2)
    if not m:
        out.append("\\" + kind)
        return i + 2
    try:
        out.append(chr(int(m.group(0), 16)))
    except (ValueError, OverflowError):
        pass  # beyond Unicode: dropped, as bash does
    return m.end()
