"""The commands the gate knows, one handler each, by family: what a command means for the rules
(destructive: rm, find, chmod, dd, mkfs ...; git; signals: kill -1, pkill -u ...), how wrappers and interpreters hand on the code
they run (wrappers: env, sudo, xargs ...; interpreters: sh -c, python -c, curl ...; builtins: eval,
source ...), and what a command prints when that can be known (output: echo, printf, base64 -d ...),
so that pipes can be followed.

CommandHandlers is a mixin of ShellAnalyzer (../shell.py), which provides dispatch, run_code,
read_file and the walk the handlers rely on. HANDLERS maps a command name to its handler.
"""

from ..shellutil import AWKS, DOWNLOADERS_STDOUT, FOREIGN, SHELLS
from .builtins import BuiltinCommands
from .destructive import DestructiveCommands
from .git import GitCommands
from .interpreters import InterpreterCommands
from .output import OutputCommands
from .signals import SignalCommands
from .wrappers import WrapperCommands


class CommandHandlers(
    BuiltinCommands,
    OutputCommands,
    WrapperCommands,
    DestructiveCommands,
    GitCommands,
    InterpreterCommands,
    SignalCommands,
):
    """Every handler family in one mixin."""


def _h(name):
    return getattr(CommandHandlers, name)


HANDLERS = {}
for _names, _method in (
    (
        (
            ":",
            "true",
            "false",
            "test",
            "[",
            "exit",
            "return",
            "let",
            "hash",
            "wait",
            "sleep",
            "mkdir",
            "touch",
            "shopt",
            "umask",
            "ulimit",
            "getopts",
            "break",
            "continue",
        ),
        None,
    ),
    (("ls",), "h_ls"),
    (("ln",), "h_ln"),
    (("echo",), "h_echo"),
    (("printf",), "h_printf"),
    (("cat",), "h_cat"),
    (("head", "tail", "sort", "tac", "uniq", "fold", "expand", "unexpand", "cut", "nl"), "h_passthrough"),
    (("base64", "base32"), "h_base64"),
    (("xxd",), "h_xxd"),
    (("rev",), "h_rev"),
    (("tr",), "h_tr"),
    (
        (
            "gzip",
            "gunzip",
            "zcat",
            "bzip2",
            "bunzip2",
            "bzcat",
            "xz",
            "unxz",
            "xzcat",
            "lzma",
            "unlzma",
            "zstd",
        ),
        "h_decompress",
    ),
    (("openssl",), "h_openssl"),
    (("tee",), "h_tee"),
    (("mktemp",), "h_mktemp"),
    (("pwd",), "h_pwd"),
    (("realpath", "readlink"), "h_realpath"),
    (("dirname",), "h_dirname"),
    (("cd",), "h_cd"),
    (("pushd",), "h_pushd"),
    (("popd",), "h_popd"),
    (("read",), "h_read"),
    (("mapfile", "readarray"), "h_mapfile"),
    (("unset",), "h_unset"),
    (("set",), "h_set"),
    (("shift",), "h_shift"),
    (("alias",), "h_alias"),
    (("trap",), "h_trap"),
    (("eval",), "h_eval"),
    ((".", "source"), "h_source"),
    (("exec",), "h_exec"),
    (("command", "builtin"), "h_command"),
    (
        (
            "nohup",
            "setsid",
            "time",
            "unbuffer",
            "strace",
            "ltrace",
            "catchsegv",
            "xvfb-run",
            "fakeroot",
            "proot",
            "firejail",
            "unshare",
            "nsenter",
            "caffeinate",
            "systemd-run",
        ),
        "h_plain_wrapper",
    ),
    (("nice",), "h_nice"),
    (("timeout",), "h_timeout"),
    (("stdbuf",), "h_stdbuf"),
    (("ionice",), "h_ionice"),
    (("chroot",), "h_chroot"),
    (("taskset", "chrt"), "h_taskset"),
    (("flock",), "h_flock"),
    (("sudo", "doas"), "h_sudo"),
    (("su", "runuser"), "h_su"),
    (("watch",), "h_watch"),
    (("env",), "h_env"),
    (("busybox", "toybox"), "h_busybox"),
    (("xargs",), "h_xargs"),
    (("rm", "srm", "wipe", "trash", "trash-put"), "h_rm"),
    (("unlink",), "h_unlink"),
    (("shred",), "h_shred"),
    (("find",), "h_find"),
    (("chmod", "chown", "chgrp", "chattr", "setfacl"), "h_chmod"),
    (("dd",), "h_dd"),
    (("mkswap", "mkdosfs", "mkntfs", "mke2fs", "mkexfatfs"), "h_mkfs"),
    (("wipefs",), "h_wipefs"),
    (("fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted"), "h_partition"),
    (("blkdiscard", "badblocks", "hdparm", "cryptsetup"), "h_blockdev_tool"),
    (("truncate",), "h_truncate"),
    (("cp", "mv", "install"), "h_cp"),
    (("rsync",), "h_rsync"),
    (("git",), "h_git"),
    (("kill",), "h_kill"),
    (("pkill",), "h_pkill"),
    (("killall",), "h_killall"),
    (("killall5",), "h_killall5"),
    (("curl",), "h_curl"),
    (("wget", "wget2"), "h_wget"),
    (tuple(DOWNLOADERS_STDOUT), "h_downloader"),
    (tuple(SHELLS), "h_shell"),
    (tuple(FOREIGN), "h_foreign"),
    (tuple(AWKS), "h_awk"),
):
    for _n in _names:
        HANDLERS[_n] = _h(_method) if _method else CommandHandlers.h_noop

# declare/export/local/typeset/readonly assign variables like plain assignments do.
for _n in ("export", "local", "readonly", "typeset", "declare"):
    HANDLERS[_n] = CommandHandlers.h_declare

