"""Walking a folder tree, glob patterns, and line search: find_by_name and grep_search (2026-09).

Standard library only, and no import of the agent's other modules: files_2026_09 runs grep in a child
process as the tool user with `python3 -I -c <this file's source>`, because Python's `re` is a
backtracking engine that holds the GIL while it matches. A pattern such as `(a+)+$` can take
exponential time; in a thread it would freeze the whole agent, in a child process the call's timeout
kills it. The child reads one JSON request on stdin and writes JSON lines: `{"match": …}` as it goes
(so a timed-out search still gives what it found), then `{"done": …}` or `{"error": …}`.
"""

import json
import os
import re
import stat
import sys
import time

# Kernel pseudo-filesystems: their "files" are not content a model searches for, and reading some of
# them is slow or blocks.
SKIP_DIRS = frozenset({"/proc", "/sys", "/dev"})
BINARY_SNIFF_BYTES = 8192


def entry_type(mode):
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _split_braces(body):
    """`a,b{c,d}` → ["a", "b{c,d}"]: commas at the top level of a brace group."""
    parts, depth, current = [], 0, ""
    for char in body:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        current += char
    parts.append(current)
    return parts


def _glob_body(pattern):
    out, i, n = [], 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    out.append("(?:.*/)?")  # `**/` : any number of folders, including none
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            start = i + 1
            if start < n and pattern[start] in "!^":
                start += 1
            if start < n and pattern[start] == "]":
                start += 1  # a "]" first in the class is literal
            end = pattern.find("]", start)
            if end == -1:
                out.append(re.escape(char))
            else:
                inner = pattern[i + 1 : end]
                if inner[:1] in ("!", "^"):
                    inner = "^" + inner[1:].replace("\\", "\\\\")
                else:
                    inner = inner.replace("\\", "\\\\")
                out.append(f"[{inner}]")
                i = end
        elif char == "{":
            depth, j = 0, i
            while j < n:
                if pattern[j] == "{":
                    depth += 1
                elif pattern[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= n:
                out.append(re.escape(char))
            else:
                alternatives = _split_braces(pattern[i + 1 : j])
                out.append("(?:" + "|".join(_glob_body(alt) for alt in alternatives) + ")")
                i = j
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def compile_glob(pattern):
    """A glob as a regex matched against the whole name (or relative path): `*` and `?` stay within one
    path segment, `**` crosses folders, `[abc]`/`[!abc]` are classes, `{a,b}` are alternatives."""
    return re.compile(_glob_body(pattern), re.DOTALL)


def walk(root, max_depth=None, deadline=None, max_entries=None, stats=None):
    """Yields (path, relative path, depth, lstat result) for everything under `root` in path order
    (depth first, names sorted), without following symbolic links and without recursion, so a deep
    tree made by tool code cannot exhaust the stack. Entries directly in `root` have depth 1. Stops
    (and sets stats["stopped"]) at the deadline or after max_entries entries."""
    stats = stats if stats is not None else {}
    stats.setdefault("visited", 0)
    stats.setdefault("unreadable", 0)

    def frame(folder, relative, depth):
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            stats["unreadable"] += 1
            return None
        return iter(entries), relative, depth

    first = frame(root, "", 0)
    frames = [first] if first else []
    while frames:
        entries, relative, depth = frames[-1]
        entry = next(entries, None)
        if entry is None:
            frames.pop()
            continue
        if deadline is not None and time.monotonic() > deadline:
            stats["stopped"] = "time"
            return
        if max_entries is not None and stats["visited"] >= max_entries:
            stats["stopped"] = "entries"
            return
        stats["visited"] += 1
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        child_relative = f"{relative}{entry.name}"
        yield entry.path, child_relative, depth + 1, info
        if stat.S_ISDIR(info.st_mode) and entry.path not in SKIP_DIRS and (max_depth is None or depth + 1 < max_depth):
            below = frame(entry.path, child_relative + "/", depth + 1)
            if below:
                frames.append(below)


def split_lines(text):
    """Lines with their line endings, split on "\\n" only (not on \\r, \\f or U+2028)."""
    if text == "":
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1] != "":
        lines.append(parts[-1])
    return lines


def strip_eol(line):
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def shorten(text, limit):
    return text if len(text) <= limit else text[:limit] + "…"


def grep(request, emit):
    """Searches the files under request["path"] (or that one file) for request["query"], calling
    emit({"match": {...}}) for each match. Returns the summary."""
    root = request["path"]
    query = request["query"]
    max_matches = request["max_matches"]
    max_files = request["max_files"]
    max_file_bytes = request["max_file_bytes"]
    max_line_chars = request["max_line_chars"]
    if request["is_regex"]:
        try:
            pattern = re.compile(query)
        except re.error as error:
            return {"error": f"Query is not a valid Python regular expression: {error}"}
        test = pattern.search
    else:
        test = lambda line: query in line  # noqa: E731
    try:
        root_info = os.stat(root)
    except OSError as error:
        return {"error": f"{root}: {os.strerror(error.errno) if error.errno else error}"}
    stats = {}
    try:
        # An unreadable SearchPath is an error; unreadable files and folders under it are counted.
        if stat.S_ISDIR(root_info.st_mode):
            os.scandir(root).close()
        else:
            os.close(os.open(root, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC))
    except OSError as error:
        return {"error": f"{root}: {os.strerror(error.errno) if error.errno else error}"}
    if stat.S_ISDIR(root_info.st_mode):
        walked = walk(root, max_entries=request["max_entries"], stats=stats)
        candidates = ((path, info) for path, _, _, info in walked if stat.S_ISREG(info.st_mode))
    elif stat.S_ISREG(root_info.st_mode):
        candidates = iter([(root, root_info)])
    else:
        return {"error": f"{root}: not a file or a directory"}
    found = searched = skipped_large = skipped_binary = unreadable = 0
    stopped = None
    for path, info in candidates:
        if searched >= max_files:
            stopped = f"stopped after searching {max_files} files"
            break
        if info.st_size > max_file_bytes:
            skipped_large += 1
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                with os.fdopen(fd, "rb", closefd=False) as handle:
                    data = handle.read(max_file_bytes + 1)
            finally:
                os.close(fd)
        except OSError:
            unreadable += 1
            continue
        if len(data) > max_file_bytes:
            skipped_large += 1
            continue
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            skipped_binary += 1
            continue
        searched += 1
        for number, line in enumerate(split_lines(data.decode("utf-8", errors="replace")), start=1):
            line = strip_eol(line)
            if test(line):
                found += 1
                emit({"match": {"path": path, "line": number, "text": shorten(line, max_line_chars)}})
                if found >= max_matches:
                    stopped = f"stopped at {max_matches} matches; narrow SearchPath or Query to see the rest"
                    break
        if stopped:
            break
    if stopped is None and stats.get("stopped"):
        stopped = f"stopped after visiting {stats['visited']} entries"
    summary = {
        "files_searched": searched,
        "files_skipped": {"too_large": skipped_large, "binary": skipped_binary, "unreadable": unreadable + stats.get("unreadable", 0)},
        "truncated": stopped is not None,
    }
    if stopped:
        summary["note"] = stopped
    return summary


def _main():
    request = json.loads(sys.stdin.read())

    def emit(message):
        sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    try:
        summary = grep(request, emit)
    except Exception as error:  # report, rather than a traceback the agent has to parse
        summary = {"error": f"grep failed: {type(error).__name__}: {error}"}
    emit({"error": summary["error"]} if "error" in summary else {"done": summary})


if __name__ == "__main__":
    _main()
