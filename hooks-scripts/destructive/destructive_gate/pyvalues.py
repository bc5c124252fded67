"""The values the python scan gives an expression besides a string Val (../values.py): lists,
paths, references to modules and functions, bound methods, objects with a path, other constants;
and the helpers shared by the scan's mixins that build string Vals (_to_str, _path_join).
"""

from .values import Val

class PyList:
    """A list, tuple or iterator: known items, or one value standing for every element."""

    __slots__ = ("items", "elem", "infinite")

    def __init__(self, items=None, elem=None, infinite=False):
        self.items, self.elem, self.infinite = items, elem, infinite


class PyPath:
    __slots__ = ("val",)

    def __init__(self, val):
        self.val = val


class PyRef:
    """A module, function or class, by qualified name (os.system, shutil, pathlib.Path)."""

    __slots__ = ("q",)

    def __init__(self, q):
        self.q = q


class PyMethod:
    __slots__ = ("obj", "name")

    def __init__(self, obj, name):
        self.obj, self.name = obj, name


class PyObj:
    """Something with a path: an open file, a temporary directory, a DirEntry, a download."""

    __slots__ = ("kind", "val")

    def __init__(self, kind, val=None):
        self.kind, self.val = kind, val


class PyConst:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _to_str(raw):
    return raw.decode("utf-8", "surrogateescape") if isinstance(raw, (bytes, bytearray)) else raw


def _path_join(vals):
    result = vals[0]
    for v in vals[1:]:
        t = v.known()
        first = v.parts[0] if v.parts else ""
        if (t is not None and t.startswith("/")) or (isinstance(first, str) and first.startswith("/")):
            result = v
        else:
            rt = result.parts[-1] if result.parts else ""
            sep = "" if isinstance(rt, str) and rt.endswith("/") else "/"
            result = result + Val.of(sep) + v if result.parts else v
    return result
