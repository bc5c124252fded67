"""Partially known strings, and where a path lands relative to the workspace.

A shell word such as `"$DIR"/*` or a python expression such as `os.path.join(root, name)` is only
partly known before it runs. The gate keeps such strings as a `Val`: a tuple of known text and
`Unknown` pieces. Rules never look at raw text; they ask `PathPolicy.classify` what the value could
resolve to, trying the few concrete strings an unknown piece stands for (see `Val.instantiate`).
"""

import posixpath

# Stands for a non-empty path component the gate cannot know. NUL never occurs in a real path.
SENT = "\x00"

# Where an unknown came from. The origins below are "dynamic": text produced at run time by a
# program (a decoder, an unknown command, a download). Code made of such text cannot be read by
# the gate, so feeding it to an interpreter is refused rather than trusted.
DYNAMIC_ORIGINS = frozenset({"output", "decode", "download", "cmdsub"})


class Unknown:
    """One piece of a string that is not known statically.

    origin      -- why it is unknown: var (unset variable), param (function argument),
                   output/cmdsub (a command's output), decode (a decoder we could not run),
                   download, loop, read, found (a path found by find/glob/walk), tmp, self ($0),
                   file (contents of a file we cannot read), arith, python.
    maybe_empty -- it may expand to "" (an unset variable does): `rm -rf $X/` may then mean `/`.
    subpath     -- it is either "" or "/something" (the path below a directory being walked).
    candidates  -- when the value is one of a known list (a `for` loop over words), those Vals.
    """

    __slots__ = ("origin", "maybe_empty", "subpath", "candidates", "label")

    def __init__(self, origin, maybe_empty=False, subpath=False, candidates=None, label=None):
        self.origin = origin
        self.maybe_empty = maybe_empty
        self.subpath = subpath
        self.candidates = candidates
        self.label = label

    def __repr__(self):  # pragma: no cover - debugging aid
        return "Unknown(%s%s)" % (self.origin, ",label=%s" % self.label if self.label else "")


class Val:
    """A string made of known text (str) and Unknown pieces.

    glob -- the word had unquoted glob characters, so `*` means "every file" (a quoted "*" does not).
    content -- for a process substitution `<(cmd)`, the text a reader of that path would get.
    """

    __slots__ = ("parts", "glob", "content")

    def __init__(self, parts=(), glob=False, content=None):
        merged = []
        for p in parts:
            if isinstance(p, str):
                if not p:
                    continue
                if merged and isinstance(merged[-1], str):
                    merged[-1] += p
                    continue
            merged.append(p)
        self.parts = tuple(merged)
        self.glob = glob
        self.content = content

    @staticmethod
    def of(text):
        return Val((text,))

    @staticmethod
    def unknown(origin, **kw):
        return Val((Unknown(origin, **kw),))

    def __add__(self, other):
        return Val(self.parts + other.parts, self.glob or other.glob)

    def known(self):
        """The text if nothing in it is unknown, else None."""
        if not self.parts:
            return ""
        if len(self.parts) == 1 and isinstance(self.parts[0], str):
            return self.parts[0]
        return None

    def unknowns(self):
        """Every Unknown in the value, including those inside candidate lists."""
        for p in self.parts:
            if isinstance(p, Unknown):
                yield p
                for c in p.candidates or ():
                    yield from c.unknowns()

    def has_known_text(self):
        return any(isinstance(p, str) and p.strip() for p in self.parts)

    def is_dynamic(self):
        return any(u.origin in DYNAMIC_ORIGINS for u in self.unknowns())

    def instantiate(self, limit=32):
        """The concrete strings worth checking: each unknown becomes "" when it may be empty, and
        a SENT component otherwise; candidate lists contribute each candidate."""
        results = [""]
        for p in self.parts:
            if isinstance(p, str):
                results = [r + p for r in results]
                continue
            opts = _unknown_options(p, limit)
            results = [r + o for r in results for o in opts][:limit]
        return results

    def render(self):
        """Human-readable text for reasons: unknown pieces show as $NAME or ...."""
        out = []
        for p in self.parts:
            if isinstance(p, str):
                out.append(p)
            elif p.label:
                out.append("$" + p.label if p.origin in ("var", "param", "loop") else "$(" + p.label + ")")
            else:
                out.append("\u2026")
        return "".join(out)

    def __repr__(self):  # pragma: no cover
        return "Val(%r)" % (self.parts,)


def _unknown_options(u, limit):
    if u.candidates:
        out = []
        for c in u.candidates:
            out.extend(c.instantiate(limit))
            if len(out) >= limit:
                break
        return out[:limit] or [SENT]
    base = "/" + SENT if u.subpath else SENT
    return ["", base] if u.maybe_empty else [base]


EMPTY_VAL = Val(())

# Verdicts of PathPolicy.classify, from harmless to worst.
EMPTY, UNKNOWN, INSIDE, ROOT, OUTSIDE = "empty", "unknown", "inside", "root", "outside"
_RANK = {EMPTY: 0, UNKNOWN: 1, INSIDE: 2, ROOT: 3, OUTSIDE: 4}

# A last path component that, unquoted, names every entry of its directory.
WHOLE_DIR_GLOBS = frozenset({"*", ".*", "**", ".[!.]*", ".??*", "..?*", "[!.]*", "*.*"})

# Device files that are safe to write to (they discard, echo or feed back data).
SAFE_DEVICES = frozenset(
    {
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/console",
    }
)
SAFE_DEVICE_DIRS = ("/dev/fd/", "/dev/pts/")
# Terminals, logs and other character devices that hold no data to destroy.
SAFE_DEVICE_PREFIXES = ("/dev/tty", "/dev/pty", "/dev/log", "/dev/kmsg", "/dev/net/tun", "/dev/fuse")
# Not devices: ordinary (if read-only in hookbox) directories under /dev.
NON_DEVICE_DIRS = ("/dev/shm/", "/dev/mqueue/")


def normalize(path):
    """Lexical normalisation of an absolute path: `.` and `..` and repeated slashes go away."""
    out = []
    for c in path.split("/"):
        if c in ("", "."):
            continue
        if c == "..":
            if out:
                out.pop()
            continue
        out.append(c)
    return "/" + "/".join(out)


def display(path):
    return path.replace(SENT, "\u2026")


def is_under(path, root, or_equal=False):
    if path == root:
        return or_equal
    return path.startswith(root.rstrip("/") + "/")


class PathPolicy:
    """Where the workspace is, which other paths the configuration allows, and what HOME is."""

    def __init__(self, workspace="/workspace", home=None, allowed=()):
        self.workspace = normalize(workspace)
        self.home = normalize(home or workspace)
        self.allowed = tuple(normalize(a) for a in allowed)
        # Follows symbolic links (path, follow_last) -> path; set by the engine.
        self.resolver = None

    def absolute(self, text, cwd):
        """Resolve a concrete string against cwd; None when that cannot be known."""
        if not text or text.startswith(SENT):
            return None
        if not text.startswith("/"):
            if cwd is None:
                return None
            text = cwd + "/" + text
        return normalize(text)

    def in_area(self, path):
        """Inside the workspace (the root included) or inside an allowed path."""
        if is_under(path, self.workspace, or_equal=True):
            return True
        return any(is_under(path, a, or_equal=True) for a in self.allowed)

    def classify_str(self, text, cwd, glob=False, follow_last=False):
        if text == "":
            return EMPTY, ""
        path = self.absolute(text, cwd)
        if path is None:
            return UNKNOWN, text
        if self.resolver is not None:
            # `rm -rf link` removes the link; `rm -rf link/` and `link/*` reach its target.
            last = text.rstrip("/").rsplit("/", 1)[-1]
            follow = follow_last or text.endswith(("/", "/.")) or (glob and last in WHOLE_DIR_GLOBS)
            path = self.resolver(path, follow)
        comps = [c for c in path.split("/") if c]
        for i, comp in enumerate(comps):
            if SENT in comp:
                # An unknown name: what matters is the directory it sits in.
                parent = "/" + "/".join(comps[:i])
                return (INSIDE if self.in_area(parent) else OUTSIDE), path
        if path == self.workspace:
            return ROOT, path
        if is_under(path, self.workspace):
            parent, base = posixpath.split(path)
            if glob and parent == self.workspace and base in WHOLE_DIR_GLOBS:
                return ROOT, path
            return INSIDE, path
        if any(is_under(path, a, or_equal=True) for a in self.allowed):
            return INSIDE, path
        return OUTSIDE, path

    def classify(self, val, cwd, follow_last=False, texts=None):
        """The worst verdict over the value's instantiations (or the given texts), with the
        concrete path behind it. follow_last: a symbolic link in the last component counts as its
        target (chmod, writes)."""
        worst = (EMPTY, "")
        for text in val.instantiate() if texts is None else texts:
            verdict, path = self.classify_str(text, cwd, val.glob, follow_last)
            if _RANK[verdict] > _RANK[worst[0]]:
                worst = (verdict, path)
        return worst

    def device_targets(self, val, cwd):
        """The device paths (other than the harmless ones) a value may name."""
        found = []
        for text in val.instantiate():
            path = self.absolute(text, cwd)
            if path is not None and self.resolver is not None:
                path = self.resolver(path, True)
            if path is None or not is_under(path, "/dev"):
                continue
            if path in SAFE_DEVICES or path.startswith(
                SAFE_DEVICE_DIRS + SAFE_DEVICE_PREFIXES + NON_DEVICE_DIRS
            ):
                continue
            if path.startswith(("/dev/tcp/", "/dev/udp/")):
                continue
            found.append(path)
        return found
