"""The file tools of the 2026-09 vocabulary (the Gemini `antigravity-preview-09-2026` agent's).

view_file, write_to_file, replace_file_content, list_dir, delete_file and find_by_name run on the
tool user's filesystem-uid threads of files.py, so the kernel checks every access (docs/contract.md §2).
grep_search runs search.py in a child process as the tool user, so the call's timeout can kill a
runaway regular expression (see search.py). The controller sends arguments already checked and
renamed to snake_case (src/tools/vocabulary-2026-09.ts); failures the model should see are
`{"error": "<path>: <reason>"}` results.
"""

import errno
import json
import os
import stat
import time

import files
import processes
import search
from files import FileToolError, check_writable, describe, resolve
from users import TOOL

SEARCH_SOURCE = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "search.py"), encoding="utf-8").read()
# How much of the replaced lines a TargetContent mismatch shows.
MISMATCH_SHOW_CHARS = 4000
FIND_TIME_BUDGET_SECONDS = 20
FIND_MAX_VISITED = 200_000
LIST_DIR_MAX_ENTRIES = 10_000
GREP_MAX_FILES = 20_000
GREP_MAX_VISITED = 200_000
GREP_MAX_LINE_CHARS = 500


def open_regular(full, flags):
    """Opens a regular file; O_NONBLOCK so a FIFO planted by tool code cannot hang the thread."""
    try:
        fd = os.open(full, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except IsADirectoryError:
        raise FileToolError(f"{full}: is a directory, not a file")
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO with no reader
            raise FileToolError(f"{full}: not a regular file")
        raise FileToolError(describe(error, full))
    if flags & (os.O_WRONLY | os.O_RDWR):
        check_writable(fd, full)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise FileToolError(f"{full}: is a directory, not a file")
        raise FileToolError(f"{full}: not a regular file")
    return fd


def read_all(fd, full, max_bytes):
    chunks, size = [], 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        size += len(chunk)
        if size > max_bytes:
            raise FileToolError(f"{full}: larger than the {max_bytes}-byte limit of this tool; use grep_search or code_execution")
        chunks.append(chunk)
    return b"".join(chunks)


def count_lines(count):
    return "1 line" if count == 1 else f"{count} lines"


def numbered(lines, first):
    return "\n".join(f"{first + index}: {search.strip_eol(line)}" for index, line in enumerate(lines))


def view_file(path, start_line, end_line, content_offset, max_bytes, max_chars):
    full = resolve(path)
    fd = open_regular(full, os.O_RDONLY)
    try:
        data = read_all(fd, full, max_bytes)
    finally:
        os.close(fd)
    lines = search.split_lines(data.decode("utf-8", errors="replace"))
    total = len(lines)
    start = start_line or 1
    if start > max(total, 1):
        raise FileToolError(f"{full}: StartLine {start} is past the end of the file ({count_lines(total)})")
    end = min(end_line or total, total)
    selected = "".join(lines[start - 1 : end])
    offset = content_offset or 0
    if offset > len(selected):
        raise FileToolError(f"{full}: ContentOffset {offset} is past the end of lines {start}-{end} ({len(selected)} characters)")
    rest = selected[offset:]
    first = start + selected.count("\n", 0, offset)
    truncated = len(rest) > max_chars
    if truncated:
        cut = rest.rfind("\n", 0, max_chars)
        cut = max_chars if cut == -1 else cut + 1  # at a line end when one is in reach
        rest = rest[:cut]
    shown = search.split_lines(rest)
    result = {
        "path": full,
        "total_lines": total,
        "start_line": first if shown else start,
        "end_line": first + len(shown) - 1 if shown else start - 1,
        "content": numbered(shown, first),
        "truncated": truncated,
    }
    if truncated:
        result["next_content_offset"] = offset + len(rest)
    return result


def encode(text, full, argument, errors="strict"):
    try:
        return text.encode("utf-8", errors=errors)
    except UnicodeEncodeError:
        raise FileToolError(f"{full}: {argument} is not valid Unicode text")


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_to_file(path, content, overwrite):
    full = resolve(path)
    data = encode(content, full, "CodeContent")
    try:
        os.makedirs(os.path.dirname(full), exist_ok=True)
    except OSError as error:
        raise FileToolError(describe(error, error.filename or full))
    if os.path.isdir(full):
        raise FileToolError(f"{full}: is a directory, not a file")
    existed = os.path.lexists(full)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    try:
        fd = open_regular(full, flags) if overwrite else os.open(full, flags | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise FileToolError(f"{full}: already exists; pass Overwrite: true to replace it, or edit it with replace_file_content")
    except IsADirectoryError:
        raise FileToolError(f"{full}: is a directory, not a file")
    except OSError as error:
        raise FileToolError(describe(error, full))
    try:
        write_all(fd, data)
    except OSError as error:
        raise FileToolError(describe(error, full))
    finally:
        os.close(fd)
    return {"ok": True, "path": full, "bytes_written": len(data), "created": not existed}


def line_ending(lines):
    return "\r\n" if lines and lines[0].endswith("\r\n") else "\n"


def replace_file_content(path, start, end, target, replacement, max_bytes):
    full = resolve(path)
    fd = open_regular(full, os.O_RDWR)
    try:
        # surrogateescape: bytes that are not UTF-8 outside the replaced lines are written back as they were.
        text = read_all(fd, full, max_bytes).decode("utf-8", errors="surrogateescape")
        lines = search.split_lines(text)
        total = len(lines)
        if start > total:
            raise FileToolError(f"{full}: StartLine {start} is past the end of the file ({count_lines(total)})")
        if end > total:
            raise FileToolError(f"{full}: EndLine {end} is past the end of the file ({count_lines(total)})")
        old = lines[start - 1 : end]
        current = "".join(old)
        eol = line_ending(old)

        def comparable(value):
            value = value.replace("\r\n", "\n")
            return value[:-1] if value.endswith("\n") else value

        if comparable(target) != comparable(current):
            shown = numbered(old, start)
            if len(shown) > MISMATCH_SHOW_CHARS:
                shown = shown[:MISMATCH_SHOW_CHARS] + "\n…"
            raise FileToolError(
                f"{full}: TargetContent does not match lines {start}-{end}; the file is unchanged. "
                f"Lines {start}-{end} are now:\n{shown}"
            )
        new = replacement
        if eol == "\r\n":
            new = new.replace("\r\n", "\n").replace("\n", "\r\n")
        # Lines are replaced by whole lines: a line break ends the replacement unless it is empty (the
        # lines are deleted) or it replaces a last line that had none.
        if new and not new.endswith("\n") and current.endswith("\n"):
            new += eol
        new_lines = search.split_lines(new)
        data = encode("".join(lines[: start - 1]) + new + "".join(lines[end:]), full, "ReplacementContent", "surrogateescape")
        os.lseek(fd, 0, os.SEEK_SET)
        write_all(fd, data)
        os.ftruncate(fd, len(data))
    except OSError as error:
        raise FileToolError(describe(error, full))
    finally:
        os.close(fd)
    return {
        "ok": True,
        "path": full,
        "start_line": start,
        "end_line": start + len(new_lines) - 1,
        "total_lines": total - len(old) + len(new_lines),
    }


def list_dir(path):
    full = resolve(path)
    try:
        with os.scandir(full) as listing:
            names = sorted(entry.name for entry in listing)
    except NotADirectoryError:
        raise FileToolError(f"{full}: not a directory")
    except OSError as error:
        raise FileToolError(describe(error, full))
    entries = []
    for name in names[:LIST_DIR_MAX_ENTRIES]:
        try:
            info = os.lstat(os.path.join(full, name))
        except OSError:
            continue
        entries.append({"name": name, "type": search.entry_type(info.st_mode), "size": info.st_size})
    result = {"path": full, "entries": entries, "truncated": len(names) > LIST_DIR_MAX_ENTRIES}
    if result["truncated"]:
        result["note"] = f"showing the first {LIST_DIR_MAX_ENTRIES} of {len(names)} entries"
    return result


def delete_file(path):
    result = files.delete_file(path)
    return {**result, "path": resolve(path)}


def find_by_name(directory, pattern, max_depth, max_results):
    full = resolve(directory)
    try:
        with os.scandir(full):
            pass  # an unreadable SearchDirectory is an error; unreadable folders below it are skipped
    except NotADirectoryError:
        raise FileToolError(f"{full}: not a directory")
    except OSError as error:
        raise FileToolError(describe(error, full))
    try:
        matcher = search.compile_glob(pattern)
    except Exception as error:
        raise FileToolError(f"Pattern {pattern!r} is not a valid glob: {error}")
    by_path = "/" in pattern
    stats = {}
    matches = []
    note = None
    deadline = time.monotonic() + FIND_TIME_BUDGET_SECONDS
    for path, relative, _depth, info in search.walk(full, max_depth, deadline, FIND_MAX_VISITED, stats):
        subject = relative if by_path else os.path.basename(path)
        if matcher.fullmatch(subject):
            if len(matches) >= max_results:
                note = f"stopped at {max_results} matches; narrow Pattern, SearchDirectory or MaxDepth to see the rest"
                break
            matches.append({"path": path, "type": search.entry_type(info.st_mode), "size": info.st_size})
    if note is None and stats.get("stopped") == "time":
        note = f"stopped after {FIND_TIME_BUDGET_SECONDS} s ({stats['visited']} entries looked at)"
    elif note is None and stats.get("stopped") == "entries":
        note = f"stopped after looking at {stats['visited']} entries"
    result = {"directory": full, "matches": matches, "truncated": note is not None}
    if note:
        result["note"] = note
    return result


async def grep_search(request):
    full = resolve(request["path"])
    job = {
        "path": full,
        "query": request["query"],
        "is_regex": request["is_regex"],
        "max_matches": request["max_matches"],
        "max_files": GREP_MAX_FILES,
        "max_entries": GREP_MAX_VISITED,
        "max_file_bytes": request["max_read_bytes"],
        "max_line_chars": GREP_MAX_LINE_CHARS,
    }
    await files.ensure_tool_tmpdir()
    run = await processes.run(
        ["/usr/bin/python3", "-I", "-B", "-c", SEARCH_SOURCE],
        user=TOOL,
        cwd=files.WORKSPACE,
        env={"PATH": "/usr/bin:/bin", "HOME": files.WORKSPACE, "TMPDIR": files.TOOL_TMPDIR, "LANG": "C.UTF-8"},
        stdin_data=json.dumps(job).encode(),
        timeout_ms=request["timeout_ms"],
        output_cap_bytes=request["output_cap_bytes"],
        # Only grep's own process group: background processes tool code may keep are not ours to end.
        sweep_user_after=False,
    )
    matches, summary, error = [], None, None
    for line in run.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue  # the last line, cut by the output cap
        if "match" in message:
            matches.append(message["match"])
        elif "done" in message:
            summary = message["done"]
        elif "error" in message:
            error = message["error"]
    if error is not None:
        return {"error": error}
    if run.timed_out:
        seconds = request["timeout_ms"] / 1000
        return {
            "matches": matches,
            "truncated": True,
            "timed_out": True,
            "note": f"timed out after {seconds:g} s with {len(matches)} matches found (Python's re backtracks: a pattern such as (a+)+$ can take exponential time)",
        }
    if summary is None:
        detail = run.stderr.strip().splitlines()[-1:] or [f"exit code {run.exit_code}"]
        return {"error": f"grep_search failed: {detail[0]}"}
    return {"matches": matches, "timed_out": False, **summary}


async def run(request):
    tool = request["tool"]
    try:
        if tool == "grep_search":
            return await grep_search(request)
        if tool == "view_file":
            work = lambda: view_file(  # noqa: E731
                request["path"],
                request.get("start_line"),
                request.get("end_line"),
                request.get("content_offset"),
                request["max_read_bytes"],
                request["max_view_chars"],
            )
        elif tool == "write_to_file":
            work = lambda: write_to_file(request["path"], request["content"], request["overwrite"])  # noqa: E731
        elif tool == "replace_file_content":
            work = lambda: replace_file_content(  # noqa: E731
                request["path"],
                request["start_line"],
                request["end_line"],
                request["target_content"],
                request["replacement_content"],
                request["max_read_bytes"],
            )
        elif tool == "list_dir":
            work = lambda: list_dir(request["path"])  # noqa: E731
        elif tool == "delete_file":
            work = lambda: delete_file(request["path"])  # noqa: E731
        elif tool == "find_by_name":
            work = lambda: find_by_name(  # noqa: E731
                request["path"], request["pattern"], request.get("max_depth"), request["max_results"]
            )
        else:
            raise ValueError(f"unknown 2026-09 file tool {tool!r}")
        return await files.run_as_tool_user(work)
    except FileToolError as error:
        return {"error": str(error)}
