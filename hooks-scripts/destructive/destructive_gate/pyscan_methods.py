"""The python scan's decoders and methods (a mixin of _Scan in pyscan.py): base64, hex, rot13 and
the decompressors applied to known text; the methods of strings (join, replace, format, split
...), of pathlib paths (unlink, chmod, write_text, open ...) and of open files, processes and
directory entries.
"""

import base64
import binascii
import codecs
import posixpath
import re

from .pyvalues import PyList, PyObj, PyPath, _path_join, _to_str
from .values import Unknown, Val


class MethodScan:
    """decode_call for the decoder functions, method for a method called on a value."""

    def decode_call(self, q, args, kw):
        """base64/hex/rot13/compression decoders: the decoded text when the input is known."""
        decoders = {
            "base64.b64decode": lambda b: base64.b64decode(b + b"=" * (-len(b) % 4)),
            "base64.standard_b64decode": lambda b: base64.standard_b64decode(b + b"=" * (-len(b) % 4)),
            "base64.urlsafe_b64decode": lambda b: base64.urlsafe_b64decode(b + b"=" * (-len(b) % 4)),
            "base64.decodebytes": base64.decodebytes,
            "base64.b32decode": base64.b32decode,
            "base64.b16decode": lambda b: base64.b16decode(b, casefold=True),
            "base64.b85decode": base64.b85decode,
            "base64.a85decode": base64.a85decode,
            "binascii.unhexlify": binascii.unhexlify,
            "binascii.a2b_hex": binascii.a2b_hex,
            "binascii.a2b_base64": binascii.a2b_base64,
            "bytes.fromhex": lambda b: bytes.fromhex(b.decode("latin-1")),
            "bytearray.fromhex": lambda b: bytes.fromhex(b.decode("latin-1")),
            "zlib.decompress": lambda b: __import__("zlib").decompress(b),
            "gzip.decompress": lambda b: __import__("gzip").decompress(b),
            "bz2.decompress": lambda b: __import__("bz2").decompress(b),
            "lzma.decompress": lambda b: __import__("lzma").decompress(b),
        }
        if q == "codecs.decode" or q == "codecs.encode":
            data = args[0] if args else None
            enc = self.arg(args, kw, 1, "encoding")
            enc_t = enc.known().lower().replace("-", "_") if isinstance(enc, Val) and enc.known() else None
            if not isinstance(data, Val) or data.known() is None or enc_t is None:
                return Val((Unknown("decode"),)) if q == "codecs.decode" else None
            text = data.known()
            try:
                if enc_t in ("rot13", "rot_13"):
                    return Val.of(codecs.decode(text, "rot13"))
                if enc_t in (
                    "hex",
                    "hex_codec",
                    "base64",
                    "base64_codec",
                    "zlib",
                    "zlib_codec",
                    "bz2",
                    "bz2_codec",
                ):
                    return Val.of(_to_str(codecs.decode(text.encode("utf-8", "surrogateescape"), enc_t)))
                return data
            except Exception:  # a malformed payload: unknown, like the decoder's output
                return Val((Unknown("decode"),))
        fn = decoders.get(q)
        if fn is None:
            return None
        data = args[0] if args else None
        if not isinstance(data, Val) or data.known() is None:
            if isinstance(data, Val) and any(u.origin == "download" for u in data.unknowns()):
                return Val((Unknown("download", maybe_empty=True),))
            return Val((Unknown("decode"),))
        try:
            return Val.of(_to_str(fn(data.known().encode("utf-8", "surrogateescape"))))
        except Exception:  # malformed input: the result cannot be known
            return Val((Unknown("decode"),))

    def method(self, m, args, kw, raw):
        obj, name = m.obj, m.name
        e = self.e
        if isinstance(obj, Val):
            t = obj.known()
            if name in (
                "decode",
                "encode",
                "strip",
                "lstrip",
                "rstrip",
                "lower",
                "upper",
                "title",
                "capitalize",
                "casefold",
                "swapcase",
            ):
                if t is None or name in ("decode", "encode"):
                    return obj
                fn = getattr(str, name)
                a = [x.known() for x in args if isinstance(x, Val)]
                try:
                    return Val.of(fn(t, *a))
                except TypeError:
                    return obj
            if name == "join" and t is not None and args:
                seq = args[0]
                if isinstance(seq, PyList) and seq.items is not None:
                    return Val(_interleave([self.val(x) for x in seq.items], t))
                if isinstance(seq, Val):
                    st = seq.known()
                    return Val.of(t.join(st)) if st is not None else seq
                return Val((Unknown("python"),))
            if name == "replace" and t is not None and len(args) >= 2:
                a, b = args[0], args[1]
                if (
                    isinstance(a, Val)
                    and isinstance(b, Val)
                    and a.known() is not None
                    and b.known() is not None
                ):
                    return Val.of(t.replace(a.known(), b.known()))
                return Val((Unknown("python"),))
            if name == "format" and t is not None:
                return _brace_format(t, [self.val(x) for x in args], {k: self.val(v) for k, v in kw.items()})
            if name in ("split", "rsplit") and t is not None:
                sep = args[0].known() if args and isinstance(args[0], Val) else None
                return PyList([Val.of(x) for x in (t.split(sep) if sep else t.split())])
            if name == "splitlines" and t is not None:
                return PyList([Val.of(x) for x in t.splitlines()])
            return None
        if isinstance(obj, PyPath):
            p = self.absolute(obj.val)
            if name in ("unlink", "rmdir"):
                e.check_delete(p, self.cwd, self.loop_depth > 0, False, raw)
            elif name in ("chmod", "lchmod", "chown"):
                e.check_perm(p, self.cwd, self.loop_depth > 0, raw)
            elif name in ("write_text", "write_bytes", "touch"):
                e.check_write(p, self.cwd, raw)
                if args and isinstance(args[0], Val):
                    self._record(p, args[0])
            elif name == "open":
                mode = self.arg(args, kw, 0, "mode")
                mt = mode.known() if isinstance(mode, Val) else "r"
                if mt is None or any(c in mt for c in "wax+"):
                    e.check_write(p, self.cwd, raw)
                    return PyObj("file", p)
                return PyObj("rfile", p)
            elif name in ("rename", "replace"):
                e.check_move(p, self.cwd, raw)
                if args:
                    e.check_write(self.absolute(self.val(args[0])), self.cwd, raw)
            elif name == "joinpath":
                return PyPath(_path_join([obj.val] + [self.val(a) for a in args]))
            elif name in ("resolve", "absolute", "expanduser"):
                v = obj.val
                t = v.known()
                if name == "expanduser" and t is not None and (t == "~" or t.startswith("~/")):
                    v = Val.of(self.home + t[1:])
                return PyPath(self.absolute(v))
            elif name in ("iterdir", "glob", "rglob"):
                return PyList(elem=PyPath(obj.val + Val(("/", Unknown("found")))))
            elif name in ("with_name", "with_suffix", "with_stem"):
                t = obj.val.known()
                return PyPath(
                    Val((posixpath.dirname(t) + "/", Unknown("python"))) if t else Val((Unknown("python"),))
                )
            elif name in ("read_text", "read_bytes"):
                return self._read(p)
            return None
        if isinstance(obj, PyObj):
            if obj.kind == "file" and name in ("write", "writelines") and args:
                data = args[0]
                if isinstance(data, PyList) and data.items is not None:
                    data = Val(_interleave([self.val(x) for x in data.items], ""))
                if isinstance(data, Val) and isinstance(obj.val, Val):
                    self._record(obj.val, data, append=True)
            elif obj.kind == "rfile" and name in ("read", "readlines"):
                return self._read(obj.val) if isinstance(obj.val, Val) else None
            elif obj.kind == "process" and name == "start":
                self._spawn_check("multiprocessing.Process", raw)
            elif obj.kind == "entry" and name in ("is_dir", "is_file", "stat", "is_symlink"):
                return None
            return None
        return None


def _interleave(vals, sep):
    parts = []
    for i, v in enumerate(vals):
        if i and sep:
            parts.append(sep)
        parts.extend(v.parts)
    return parts


def _brace_format(fmt, args, kwargs):
    out, idx, pos = [], 0, 0
    for m in re.finditer(r"\{\{|\}\}|\{([^{}!:]*)(?:![rsa])?(?::[^{}]*)?\}", fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            out.append(tok[0])
            continue
        key = m.group(1)
        if key == "":
            v = args[idx] if idx < len(args) else None
            idx += 1
        elif key.isdigit():
            v = args[int(key)] if int(key) < len(args) else None
        else:
            v = kwargs.get(key)
        out.extend((v or Val((Unknown("python"),))).parts)
    out.append(fmt[pos:])
    return Val(out)
