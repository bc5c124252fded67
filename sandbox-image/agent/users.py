"""The two unprivileged users of the sandbox (docs/contract.md §2) and the credential switches the agent makes."""

import ctypes
import os
import platform
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    gid: int


TOOL = User("tool", 1000, 1000)
HOOK = User("hook", 1001, 1001)

_libc = ctypes.CDLL(None, use_errno=True)
# setresuid/setresgid syscall numbers: x86-64, else arm64.
_SYS_SETRESUID, _SYS_SETRESGID = (117, 119) if platform.machine() == "x86_64" else (147, 149)


def drop_supplementary_groups():
    # root's supplementary groups (gid 0) would otherwise follow the fsuid threads into files.
    os.setgroups([])


def become_filesystem_user(user):
    """Switches the calling thread's filesystem uid/gid, so the kernel checks its file access as `user`.

    setfsuid and setfsgid are per-thread (glibc does not broadcast them to other threads), which is
    what lets the agent run file tools as the tool user without a process per call.
    """
    # gVisor (runsc) has no setfsuid/setfsgid (ENOSYS, -1): there the raw setresgid/setresuid
    # syscalls switch this thread's effective ids instead (the kernel call is per-thread; only glibc's
    # wrapper broadcasts to every thread). The saved id stays 0 and no tool code runs on these
    # threads. docs/gvisor.md, Differences.
    if _libc.setfsgid(user.gid) == -1 or _libc.setfsuid(user.uid) == -1:
        if _libc.syscall(_SYS_SETRESGID, -1, user.gid, -1) != 0:
            raise OSError(ctypes.get_errno(), "setresgid failed")
        if _libc.syscall(_SYS_SETRESUID, -1, user.uid, -1) != 0:
            raise OSError(ctypes.get_errno(), "setresuid failed")
    with open("/proc/thread-self/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    uids = fields["Uid"].split()
    gids = fields["Gid"].split()
    if int(uids[3]) != user.uid or int(gids[3]) != user.gid:
        raise RuntimeError(f"could not switch the filesystem user to {user.name}")


_executors = {}


def filesystem_executor(user):
    """Threads whose filesystem uid/gid is `user`'s (one pool per user, made on first use)."""
    if user.uid not in _executors:
        _executors[user.uid] = ThreadPoolExecutor(
            max_workers=2,
            thread_name_prefix=f"{user.name}-fs",
            initializer=become_filesystem_user,
            initargs=(user,),
        )
    return _executors[user.uid]
