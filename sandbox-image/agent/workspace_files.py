"""The files API of the environment (docs/environments.md, "Files"): reading, writing and deleting
files under /workspace for the API's client, a folder as a tar archive, and an uploaded zip archive
read into a tar one (so the controller checks its members as it checks a tar's).

Everything runs on the tool user's filesystem-uid threads of files.py, so the kernel checks every
access as it does for tool code (docs/contract.md §2). The controller has checked the path's syntax already
(relative, no `..`); here the agent refuses a path whose symlinks lead out of /workspace.
Failures are answers `{"error_kind": ..., "error": ...}`: `escapes`, `exists`, `not_found`,
`is_directory`, `not_directory`, `not_regular`, `not_empty`, `too_large`, `loop`, `agents`,
`read_only`, `permission`, `no_space`, `too_long`, `not_archive`, `os` (an error nothing here
expected).
"""

import asyncio
import base64
import errno
import io
import os
import stat
import tarfile
import zipfile

from files import TOOL_EXECUTOR, WORKSPACE
from search import entry_type


class FilesError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


AGENTS_MIRROR = os.path.join(WORKSPACE, ".agents")

# What the operating system's refusals mean for a files-API path, in our words (never errno's):
# objects tool code planted (a symlink loop, a fifo, a link out of the workspace or into the gates'
# mirror) are the caller's 4xx, not a failure of the sandbox (docs/environments.md, "Files").
_ERRNO_KINDS = {
    errno.ELOOP: ("loop", "its symlinks lead to each other in a loop"),
    errno.ENXIO: ("not_regular", "not a regular file"),
    errno.EROFS: ("read_only", "on a read-only filesystem"),
    errno.EACCES: ("permission", "the tool user may not do that"),
    errno.EPERM: ("permission", "the tool user may not do that"),
    errno.ENOSPC: ("no_space", "no space left in /workspace (its disk is full)"),
    errno.EDQUOT: ("no_space", "no space left in /workspace (its disk is full)"),
    errno.ENOTDIR: ("not_directory", "a parent is a file, not a folder"),
    errno.EISDIR: ("is_directory", "is a folder, not a file"),
    errno.ENAMETOOLONG: ("too_long", "the path is too long"),
}


def _shown(path):
    return f"/workspace/{path}".rstrip("/")


def _resolved(full, shown):
    """The real path of `full`, following every symlink; a loop or a link into somewhere the tool
    user cannot look is refused here rather than failing later with errno's words."""
    try:
        return os.path.realpath(full, strict=True)
    except FileNotFoundError:
        return os.path.realpath(full)  # a file about to be made: its folders are resolved
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise FilesError("loop", f"{shown}: its symlinks lead to each other in a loop")
        if error.errno in (errno.EACCES, errno.EPERM):
            # Everything beneath /workspace is the tool user's to look at (its root included): a
            # link it may not follow leads out of it (`/proc/1/root`, another user's files).
            raise FilesError("escapes", f"{shown}: a symlink leads out of /workspace, where the tool user may not look")
        raise os_error(error, shown)


def inside(path, changing=False, follow_last=True):
    """The real path of `path` (a relative path under /workspace), refused if it leaves /workspace
    or, for a change, leads into the read-only mirror of the gates. With `follow_last` false the last
    component is the entry itself (a delete removes a symlink, never what it leads to)."""
    full = os.path.join(WORKSPACE, path) if path else WORKSPACE
    shown = _shown(path)
    if follow_last or not path:
        real = _resolved(full, shown)
    else:
        real = os.path.join(_resolved(os.path.dirname(full), shown), os.path.basename(full))
    if real != WORKSPACE and not real.startswith(WORKSPACE + "/"):
        raise FilesError("escapes", f"{shown}: a symlink leads out of /workspace (to {real})")
    # The controller refuses `.agents/...` by name; a symlink tool code planted is caught here, on
    # the path it resolves to (docs/environments.md, "Files").
    if changing and (real == AGENTS_MIRROR or real.startswith(AGENTS_MIRROR + "/")):
        raise FilesError(
            "agents",
            f"{shown}: leads to {real}, under /workspace/.agents, the read-only mirror of the gates; send gates as sources",
        )
    return real


def os_error(error, shown):
    kind, words = _ERRNO_KINDS.get(error.errno, ("os", None))
    if words is None:
        return FilesError("os", f"{shown}: {os.strerror(error.errno) if error.errno else error}")
    return FilesError(kind, f"{shown}: {words}")


def get(path, max_bytes):
    real = inside(path)
    shown = f"/workspace/{path}".rstrip("/")
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        raise FilesError("not_found", f"{shown}: no such file or folder")
    except OSError as error:
        raise os_error(error, shown)
    if stat.S_ISDIR(info.st_mode):
        return {"type": "directory", "entries": listing(real), **times_of(info)}
    if not stat.S_ISREG(info.st_mode):
        raise FilesError("not_regular", f"{shown}: not a regular file")
    if info.st_size > max_bytes:
        raise FilesError("too_large", f"{shown}: {info.st_size} bytes, over the {max_bytes}-byte limit of the files API; use ?format=tar or code_execution")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise os_error(error, shown)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FilesError("too_large", f"{shown}: over the {max_bytes}-byte limit of the files API")
    return {"type": "file", "data": base64.b64encode(data).decode("ascii"), "size": len(data), **times_of(info)}


def times_of(info):
    """When an entry was last modified, and when its inode last changed (Linux keeps no birth time
    that Python 3.11 can read): milliseconds since the epoch, shown by the SDKs' files.list."""
    return {"mtime_ms": int(info.st_mtime_ns // 1_000_000), "ctime_ms": int(info.st_ctime_ns // 1_000_000)}


def listing(real):
    entries = []
    for name in sorted(os.listdir(real)):
        try:
            info = os.lstat(os.path.join(real, name))
        except OSError:
            continue
        entries.append({"name": name, "type": entry_type(info.st_mode), "size": info.st_size, **times_of(info)})
    return entries


def put_one(path, data, overwrite):
    real = inside(path, changing=True)
    shown = _shown(path)
    try:
        existing = os.lstat(real)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise os_error(error, shown)
    if existing is not None and stat.S_ISLNK(existing.st_mode):
        raise FilesError("not_regular", f"{shown}: a symlink whose target cannot be written")
    if existing is not None and not stat.S_ISREG(existing.st_mode) and not stat.S_ISDIR(existing.st_mode):
        raise FilesError("not_regular", f"{shown}: not a regular file")
    parent = os.path.dirname(real)
    try:
        os.makedirs(parent, mode=0o755, exist_ok=True)
    except FileExistsError:
        raise FilesError("not_directory", f"{shown}: a parent is a file, not a folder")
    except NotADirectoryError:
        raise FilesError("not_directory", f"{shown}: a parent is a file, not a folder")
    except OSError as error:
        raise os_error(error, shown)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    flags |= os.O_TRUNC if overwrite else os.O_EXCL
    try:
        fd = os.open(real, flags, 0o644)
    except FileExistsError:
        raise FilesError("exists", f"{shown}: exists; send ?overwrite=true to replace it")
    except IsADirectoryError:
        raise FilesError("is_directory", f"{shown}: is a folder, not a file")
    except OSError as error:
        raise os_error(error, shown)
    with os.fdopen(fd, "wb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FilesError("not_regular", f"{shown}: not a regular file")
        handle.write(data)
    return len(data)


def put_many(entries, overwrite):
    """Writes every entry, or none when one would be refused (checked before the first write)."""
    for entry in entries:
        real = inside(entry["path"], changing=True)
        if entry["type"] == "file" and not overwrite and os.path.lexists(real):
            raise FilesError("exists", f"/workspace/{entry['path']}: exists; send ?overwrite=true to replace it")
    written = 0
    for entry in entries:
        if entry["type"] == "directory":
            real = inside(entry["path"], changing=True)
            try:
                os.makedirs(real, mode=0o755, exist_ok=True)
            except OSError as error:
                raise os_error(error, f"/workspace/{entry['path']}")
        else:
            written += put_one(entry["path"], base64.b64decode(entry["data"]), True)
    return {"files": sum(1 for e in entries if e["type"] == "file"), "bytes": written}


def delete(path):
    real = inside(path, changing=True, follow_last=False)
    shown = _shown(path)
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        raise FilesError("not_found", f"{shown}: no such file")
    except OSError as error:
        raise os_error(error, shown)
    if stat.S_ISDIR(info.st_mode):
        try:
            os.rmdir(real)
        except OSError as error:
            if error.errno == 39:  # ENOTEMPTY
                raise FilesError("not_empty", f"{shown}: a folder that is not empty")
            raise os_error(error, shown)
    else:
        try:
            os.unlink(real)
        except OSError as error:
            raise os_error(error, shown)
    return {"deleted": True}


def tar_of(path, max_bytes):
    real = inside(path)
    shown = f"/workspace/{path}".rstrip("/")
    if not os.path.isdir(real):
        raise FilesError("not_directory" if os.path.lexists(real) else "not_found", f"{shown}: not a folder")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name in sorted(os.listdir(real)):
            # /workspace/.agents is the read-only mirror of the gates, not the workspace's own: an
            # archive of /workspace leaves it out, so it can be uploaded again as it is.
            if real == WORKSPACE and name == ".agents":
                continue
            # Symlinks are stored as links (never followed): what is in the folder, no more.
            archive.add(os.path.join(real, name), arcname=name, recursive=True, filter=check_size(buffer, max_bytes, shown))
    data = buffer.getvalue()
    if len(data) > max_bytes:
        raise FilesError("too_large", f"{shown}: the archive is over the {max_bytes}-byte limit of the files API")
    return {"data": base64.b64encode(data).decode("ascii"), "size": len(data)}


def check_size(buffer, max_bytes, shown):
    def check(member):
        if buffer.tell() + member.size > max_bytes:
            raise FilesError("too_large", f"{shown}: the archive is over the {max_bytes}-byte limit of the files API")
        member.uname = member.gname = "tool"
        return member

    return check


def tar_of_zip(data, max_bytes):
    """An uploaded zip archive as a tar archive with the same member names, unchecked: the
    controller checks every name and type as it does a tar's (a `../`, an absolute path or a
    symlink is refused there). Reading it here keeps a hostile archive's parsing in the sandbox.
    Symlinks (Unix mode bits in `external_attr`) become tar symlinks so that they are refused as
    such; more than `max_bytes` unpacked, an encrypted member or a bad CRC is refused."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as error:
        raise FilesError("not_archive", f"not a zip archive ({error})")
    out = io.BytesIO()
    total = 0
    with archive, tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info in archive.infolist():
            member = tarfile.TarInfo(info.filename)
            mode = info.external_attr >> 16
            if info.flag_bits & 0x1:
                raise FilesError("not_archive", f"archive member {info.filename!r} is encrypted")
            if stat.S_ISLNK(mode):
                member.type = tarfile.SYMTYPE
                member.linkname = archive.read(info)[:4096].decode("utf-8", "replace")
                tar.addfile(member)
                continue
            if info.is_dir():
                member.type = tarfile.DIRTYPE
                tar.addfile(member)
                continue
            total += info.file_size
            if total > max_bytes:
                raise FilesError("too_large", f"the archive unpacks to over the {max_bytes}-byte limit of the files API")
            try:
                # Read at most what the header announced, plus one byte to catch a lying header.
                with archive.open(info) as handle:
                    content = handle.read(info.file_size + 1)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as error:
                raise FilesError("not_archive", f"archive member {info.filename!r} cannot be read ({error})")
            if len(content) != info.file_size:
                raise FilesError("not_archive", f"archive member {info.filename!r} is not the size its header says")
            member.size = len(content)
            member.mode = 0o644
            tar.addfile(member, io.BytesIO(content))
    tarred = out.getvalue()
    return {"data": base64.b64encode(tarred).decode("ascii"), "size": len(tarred)}


async def run(request):
    action = request["action"]
    path = request.get("path", "")
    limit = request.get("max_bytes", 16 * 1024 * 1024)
    if action == "get":
        work = lambda: get(path, limit)  # noqa: E731
    elif action == "put":
        work = lambda: {"bytes": put_one(path, base64.b64decode(request["data"]), request["overwrite"])}  # noqa: E731
    elif action == "put_many":
        work = lambda: put_many(request["entries"], request["overwrite"])  # noqa: E731
    elif action == "delete":
        work = lambda: delete(path)  # noqa: E731
    elif action == "tar":
        work = lambda: tar_of(path, limit)  # noqa: E731
    elif action == "zip_to_tar":
        work = lambda: tar_of_zip(base64.b64decode(request["data"]), limit)  # noqa: E731
    else:
        raise ValueError(f"unknown files action {action!r}")
    try:
        return await asyncio.get_running_loop().run_in_executor(TOOL_EXECUTOR, work)
    except FilesError as error:
        return {"error_kind": error.kind, "error": str(error)}
    except OSError as error:
        failure = os_error(error, _shown(path))
        return {"error_kind": failure.kind, "error": str(failure)}
