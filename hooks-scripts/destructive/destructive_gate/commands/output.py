"""Commands whose output the gate can know (echo, printf, cat, base64 -d, xxd -r, rev, tr, gunzip,
openssl, tee), so that pipes into an interpreter can be followed.

A mixin of CommandHandlers (see __init__.py); `self` is the ShellAnalyzer (../shell.py)."""

import base64
import binascii
import re

from ..shellutil import (
    concat_vals,
    join_vals,
    map_known,
    output_of,
    parse_opts,
    texts_of,
    to_bytes,
    to_str,
    unescape,
)
from ..values import EMPTY_VAL, Unknown, Val


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([sbqdiouxXcfeEgGaA%])")

def _printf(fmt, args):
    fmt = unescape(fmt, printf=True)
    out = []
    idx = 0
    for _ in range(64):  # the format is reused while arguments remain
        pos = 0
        consumed = False
        for m in _PRINTF_SPEC.finditer(fmt):
            out.append(fmt[pos : m.start()])
            pos = m.end()
            conv = m.group(4)
            if conv == "%":
                out.append("%")
                continue
            arg = args[idx] if idx < len(args) else Val.of("")
            idx += 1
            consumed = True
            if conv == "b":
                out.extend(map_known(arg, lambda t: unescape(t, printf=False)).parts)
            elif conv in "sq":
                out.extend(arg.parts)
            elif conv == "c":
                t = arg.known()
                out.append(t[:1] if t is not None else Unknown("output"))
            else:
                t = arg.known()
                try:
                    out.append(
                        (
                            "%"
                            + (m.group(1) or "")
                            + (m.group(2) or "")
                            + ("." + m.group(3) if m.group(3) else "")
                            + conv
                        )
                        % (int(t, 0) if conv not in "feEgGaA" else float(t))
                    )
                except (TypeError, ValueError):
                    out.append(Unknown("output"))
        out.append(fmt[pos:])
        if idx >= len(args) or not consumed:
            break
    return Val(out)

def _tr_set(spec):
    classes = {
        "[:lower:]": "abcdefghijklmnopqrstuvwxyz",
        "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "[:digit:]": "0123456789",
        "[:space:]": " \t\n\r\f\v",
        "[:alpha:]": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "[:alnum:]": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    }
    for k, v in classes.items():
        spec = spec.replace(k, v)
    spec = unescape(spec, printf=True)
    out, i = [], 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            a, b = ord(spec[i]), ord(spec[i + 2])
            if a <= b:
                out.extend(chr(c) for c in range(a, b + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)

def _pad(text, block):
    return text + "=" * (-len(text) % block)


class OutputCommands:
    def h_echo(self, argv, st, ctx):
        args = argv[1:]
        newline, escapes = True, False
        while args and (args[0].known() or "") and re.fullmatch(r"-[neE]+", args[0].known()):
            flags = args[0].known()
            newline = newline and "n" not in flags
            escapes = ("e" in flags) or (escapes and "E" not in flags)
            args = args[1:]
        out = join_vals(args)
        if escapes:
            out = map_known(out, lambda t: unescape(t, printf=False))
        return out + Val.of("\n") if newline else out

    def h_printf(self, argv, st, ctx):
        args = argv[1:]
        var = None
        if args and args[0].known() == "-v" and len(args) > 1:
            var = args[1].known()
            args = args[2:]
        if args and args[0].known() == "--":
            args = args[1:]
        if not args:
            return EMPTY_VAL
        fmt = args[0].known()
        out = _printf(fmt, args[1:]) if fmt is not None else output_of("printf")
        if var:
            st.vars[var] = out
            return EMPTY_VAL
        return out

    def h_cat(self, argv, st, ctx):
        flags, _, files = parse_opts(argv[1:])
        if not files:
            return ctx.stdin
        return concat_vals([self.read_file(f, st, ctx.stdin) for f in files])

    def h_passthrough(self, argv, st, ctx):
        """Filters whose output is (a subset of) their input: head, tail, sort, tac ..."""
        flags, values, files = parse_opts(argv[1:], short_with_arg="nckt")
        if files:
            return concat_vals([self.read_file(f, st, ctx.stdin) for f in files])
        return ctx.stdin

    def h_base64(self, argv, st, ctx, decoder=None):
        flags, values, files = parse_opts(argv[1:], short_with_arg="w", long_with_arg=("--wrap",))
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        decode = bool(flags & {"d", "D", "--decode"})
        name = argv[0].known() or "base64"
        if not decode:
            return output_of(name)
        text = data.known()
        if text is None:
            return Val.unknown(
                "download" if any(u.origin == "download" for u in data.unknowns()) else "decode",
                maybe_empty=True,
                label=name,
            )
        try:
            if "32" in name:
                raw = base64.b32decode(_pad(re.sub(r"\s+", "", text), 8))
            else:
                cleaned = (
                    re.sub(r"[^A-Za-z0-9+/=_-]", "", text)
                    if "i" in flags or "--ignore-garbage" in flags
                    else re.sub(r"\s+", "", text)
                )
                raw = base64.b64decode(
                    _pad(cleaned, 4), altchars=b"-_" if "-" in cleaned or "_" in cleaned else None
                )
        except (binascii.Error, ValueError):
            return Val.unknown("decode", maybe_empty=True, label=name)
        return Val.of(to_str(raw))

    def h_xxd(self, argv, st, ctx):
        flags, values, files = parse_opts(argv[1:], short_with_arg="cglosn", long_with_arg=())
        if "r" not in flags and "-revert" not in flags:
            return output_of("xxd")
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        text = data.known()
        if text is None:
            return Val.unknown("decode", maybe_empty=True, label="xxd")
        plain = (
            "p" in flags
            or "-ps" in flags
            or "-plain" in flags
            or "--ps" in flags
            or "--plain" in flags
            or "-postscript" in flags
        )
        if not plain:
            # Classic dump lines: "00000000: 726d 202d 7266 202f  rm -rf /"
            hexes = []
            for line in text.splitlines():
                m = re.match(r"\s*[0-9a-fA-F]+:\s*((?:[0-9a-fA-F]{2,4}\s?)+)", line)
                if m:
                    hexes.append(m.group(1))
            text = " ".join(hexes)
        digits = re.sub(r"[^0-9a-fA-F]", "", text)
        try:
            return Val.of(to_str(binascii.unhexlify(digits[: len(digits) // 2 * 2])))
        except binascii.Error:
            return Val.unknown("decode", maybe_empty=True, label="xxd")

    def h_rev(self, argv, st, ctx):
        _, _, files = parse_opts(argv[1:])
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        text = data.known()
        if text is None:
            return Val.unknown("decode", maybe_empty=True, label="rev")
        return Val.of("".join(line[::-1] + "\n" for line in text.splitlines()))

    def h_tr(self, argv, st, ctx):
        flags, _, sets = parse_opts(argv[1:])
        text = ctx.stdin.known()
        sets_t = texts_of(sets)
        if text is None or any(s is None for s in sets_t) or not sets_t:
            return Val.unknown("decode", maybe_empty=True, label="tr")
        s1 = _tr_set(sets_t[0])
        if "d" in flags or "--delete" in flags:
            return Val.of("".join(c for c in text if c not in set(s1)))
        if len(sets_t) < 2:
            return ctx.stdin
        s2 = _tr_set(sets_t[1])
        if not s2:
            return ctx.stdin
        s2 = s2 + s2[-1] * max(0, len(s1) - len(s2))
        table = {}
        for a, b in zip(s1, s2):
            table.setdefault(ord(a), b)
        return Val.of(text.translate(table))

    def h_decompress(self, argv, st, ctx):
        name = argv[0].known()
        flags, _, files = parse_opts(argv[1:])
        if name in ("gzip", "bzip2", "xz", "lzma", "zstd") and not flags & {
            "d",
            "--decompress",
            "--uncompress",
        }:
            return output_of(name)
        data = self.read_file(files[0], st, ctx.stdin) if files else ctx.stdin
        text = data.known()
        if text is None:
            return Val.unknown("decode", maybe_empty=True, label=name)
        try:
            if name in ("gzip", "gunzip", "zcat"):
                import gzip

                raw = gzip.decompress(to_bytes(text))
            elif name in ("bzip2", "bunzip2", "bzcat"):
                import bz2

                raw = bz2.decompress(to_bytes(text))
            elif name in ("xz", "unxz", "xzcat", "lzma", "unlzma"):
                import lzma

                raw = lzma.decompress(to_bytes(text))
            else:
                return Val.unknown("decode", maybe_empty=True, label=name)
        except Exception:  # any corrupt stream: the gate cannot know what comes out
            return Val.unknown("decode", maybe_empty=True, label=name)
        return Val.of(to_str(raw))

    def h_openssl(self, argv, st, ctx):
        words = texts_of(argv[1:])
        if "-d" not in words:
            return output_of("openssl")
        if "base64" in words or "-base64" in words or "-a" in words:
            # `openssl base64 -d [-in FILE]` / `openssl enc -base64 -d`: a base64 decoder.
            files = [argv[i + 2] for i, w in enumerate(words) if w == "-in" and i + 2 < len(argv)]
            return self.h_base64([Val.of("base64"), Val.of("-d")] + files[:1], st, ctx)
        return Val.unknown("decode", maybe_empty=True, label="openssl")

    def h_tee(self, argv, st, ctx):
        _, _, files = parse_opts(argv[1:])
        for f in files:
            self.e.check_write(f, st.cwd, ctx.raw)
            path = self.paths.absolute(f.known() or "", st.cwd) if f.known() else None
            if path:
                st.vfs[path] = ctx.stdin
        return ctx.stdin
