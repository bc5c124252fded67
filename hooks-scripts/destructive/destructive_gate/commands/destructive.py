"""Commands that delete, overwrite or change permissions: rm, shred, find -delete, chmod/chown,
dd, mkfs, wipefs, partitioning, truncate, cp/mv/rsync onto protected paths.

A mixin of CommandHandlers (see __init__.py); `self` is the ShellAnalyzer (../shell.py)."""

import posixpath
import re

from ..shellutil import (
    BIN_DIRS,
    Ctx,
    concat_vals,
    output_of,
    parse_opts,
    texts_of,
    val_replace,
)
from ..values import EMPTY_VAL, Unknown, Val


FIND_FILTERS = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-lname",
        "-ilname",
        "-newer",
        "-anewer",
        "-cnewer",
        "-newermt",
        "-newerct",
        "-neweraa",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-size",
        "-empty",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-nouser",
        "-nogroup",
        "-perm",
        "-links",
        "-inum",
        "-samefile",
        "-used",
        "-readable",
        "-writable",
        "-executable",
        "-fstype",
    }
)

FIND_ARG_TESTS = frozenset(
    FIND_FILTERS - {"-empty", "-nouser", "-nogroup", "-readable", "-writable", "-executable"}
) | {
    "-maxdepth",
    "-mindepth",
    "-type",
    "-xtype",
    "-printf",
    "-fprintf",
    "-fprint",
    "-fprint0",
    "-fls",
    "-regextype",
    "-D",
}

_PARTITION_READONLY = {
    "fdisk": frozenset({"l", "--list"}),
    "sfdisk": frozenset(
        {"l", "--list", "d", "--dump", "J", "--json", "s", "--show-size", "--verify", "--list-free", "F"}
    ),
    "parted": frozenset({"l", "--list"}),
    "sgdisk": frozenset({"p", "--print", "v", "--verify", "i", "--info"}),
    "gdisk": frozenset({"l"}),
}


class DestructiveCommands:
    def h_rm(self, argv, st, ctx):
        flags, _, targets = parse_opts(argv[1:])
        recursive = bool(flags & {"r", "R", "--recursive"})
        forced = bool(flags & {"f", "--force"})
        for t in targets:
            self.e.check_delete(t, st.cwd, recursive, forced, ctx.raw, refuses_dot=True)
        return EMPTY_VAL

    def h_unlink(self, argv, st, ctx):
        _, _, targets = parse_opts(argv[1:])
        for t in targets:
            self.e.check_delete(t, st.cwd, False, False, ctx.raw)
        return EMPTY_VAL

    def h_shred(self, argv, st, ctx):
        flags, _, targets = parse_opts(
            argv[1:], short_with_arg="ns", long_with_arg=("--iterations", "--size", "--random-source")
        )
        for t in targets:
            devices = self.paths.device_targets(t, st.cwd)
            if devices:
                self.e.block("disk-writer", ctx.raw, devices[0])
            # shred destroys the content even without -u: as bad as deleting it.
            self.e.check_delete(t, st.cwd, False, True, ctx.raw)
        return EMPTY_VAL

    def h_find(self, argv, st, ctx):
        args = argv[1:]
        i = 0
        while i < len(args) and args[i].known() in ("-H", "-L", "-P", "-D", "-O3", "-O2", "-O1", "-O0"):
            i += 2 if args[i].known() == "-D" else 1
        starts = []
        while i < len(args):
            t = args[i].known()
            if t is not None and (t.startswith("-") or t in ("(", "!", ")", ",")) and t != "-":
                break
            starts.append(args[i])
            i += 1
        expr = args[i:]
        words = texts_of(expr)
        filtered = any(w in FIND_FILTERS for w in words)
        starts = starts or [Val.of(".")]
        out = []
        for start in starts:
            found = start + Val((Unknown("found", subpath=True, maybe_empty=not filtered),))
            found.glob = start.glob
            j = 0
            acted = False
            while j < len(expr):
                w = words[j]
                if w == "-delete":
                    self.e.check_delete(found, st.cwd, True, True, ctx.raw, tree=True)
                    acted = True
                elif w in ("-exec", "-execdir", "-ok", "-okdir"):
                    k = j + 1
                    cmd = []
                    while k < len(expr) and words[k] not in (";", "+"):
                        cmd.append(expr[k])
                        k += 1
                    if cmd:
                        cmd = [val_replace(c, "{}", found) for c in cmd]
                        self.dispatch(cmd, st.copy(), Ctx(EMPTY_VAL, ctx.bg, ctx.piped, ctx.raw))
                    acted = True
                    j = k
                elif w in FIND_ARG_TESTS:
                    j += 1
                j += 1
            if not acted or "-print" in words or "-print0" in words:
                out.append(found + Val.of("\n"))
        return concat_vals(out)

    def h_chmod(self, argv, st, ctx):
        name = argv[0].known()
        args = argv[1:]
        opts, operands, done = [], [], False
        for a in args:
            t = a.known()
            if not done and t == "--":
                done = True
            elif (
                not done
                and t
                and t.startswith("-")
                and len(t) > 1
                and (name != "chmod" or re.fullmatch(r"-[cfvRHLPh]+|--[a-z-]+(=.*)?", t))
            ):
                opts.append(t)
            else:
                operands.append(a)
        recursive = any(o == "--recursive" or (not o.startswith("--") and "R" in o) for o in opts)
        if name == "chattr":
            operands = [o for o in operands if (o.known() or "x")[:1] not in "+-="]
        elif name == "setfacl":
            flags, values, operands = parse_opts(
                args,
                short_with_arg="mMxX",
                long_with_arg=(
                    "--modify",
                    "--modify-file",
                    "--remove",
                    "--remove-file",
                    "--set",
                    "--set-file",
                ),
            )
            recursive = bool(flags & {"R", "--recursive"})
        elif not any(o.startswith("--reference") for o in opts):
            operands = operands[1:]  # the mode, owner or group
        for t in operands:
            self.e.check_perm(t, st.cwd, recursive, ctx.raw)
        return EMPTY_VAL

    def h_dd(self, argv, st, ctx):
        out = None
        for a in argv[1:]:
            first = a.parts[0] if a.parts else ""
            if isinstance(first, str) and first.startswith("of="):
                target = Val((first[3:],) + a.parts[1:])
                self.e.check_write(target, st.cwd, ctx.raw)
                out = target
        return output_of("dd") if out is None else EMPTY_VAL

    def h_mkfs(self, argv, st, ctx):
        flags, _, operands = parse_opts(argv[1:], short_with_arg="tbCEgGiIJlLmMNoOrTUde")
        for t in operands:
            self.e.check_disk_target(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_wipefs(self, argv, st, ctx):
        flags, _, operands = parse_opts(
            argv[1:], short_with_arg="obtO", long_with_arg=("--offset", "--backup", "--types", "--output")
        )
        if flags & {"n", "--no-act", "h", "--help", "V", "--version"}:
            return EMPTY_VAL
        for t in operands:
            self.e.check_disk_target(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_partition(self, argv, st, ctx):
        name = argv[0].known()
        flags, _, operands = parse_opts(
            argv[1:],
            short_with_arg="bcCHSuLoN",
            long_with_arg=("--sector-size", "--label", "--output", "--partno"),
        )
        words = set(texts_of(operands))
        # Read-only modes (listing, dumping, printing) differ from tool to tool.
        readonly = _PARTITION_READONLY.get(name, frozenset()) | {"h", "--help", "V", "--version"}
        if flags & readonly or (name == "parted" and words & {"print", "list"}):
            return EMPTY_VAL
        for t in operands:
            if re.fullmatch(
                r"[0-9]+[KMGTkmgt%]?[Bb]?|mklabel|mkpart|rm|primary|gpt|msdos|ext4|fat32", t.known() or "/"
            ):
                continue
            self.e.check_disk_target(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_blockdev_tool(self, argv, st, ctx):
        """blkdiscard, badblocks -w, hdparm erase options, cryptsetup format: any device target."""
        name = argv[0].known()
        words = texts_of(argv[1:])
        if name == "badblocks" and not any(
            w in ("-w", "-n") or (w and w.startswith("-") and ("w" in w or "n" in w)) for w in words if w
        ):
            return EMPTY_VAL
        if name == "hdparm" and not any(
            w
            and (
                w.startswith("--security-erase")
                or w
                in (
                    "--trim-sector-ranges",
                    "--write-sector",
                    "--make-bad-sector",
                    "--fwdownload",
                    "--dco-restore",
                )
            )
            for w in words
        ):
            return EMPTY_VAL
        if name == "cryptsetup" and not any(
            w in ("luksFormat", "erase", "luksErase", "reencrypt", "luksKillSlot", "open") for w in words
        ):
            return EMPTY_VAL
        for a in argv[1:]:
            devices = self.paths.device_targets(a, st.cwd)
            if devices:
                self.e.block("disk-writer", ctx.raw, devices[0])
        return EMPTY_VAL

    def h_truncate(self, argv, st, ctx):
        _, _, targets = parse_opts(
            argv[1:], short_with_arg="sr", long_with_arg=("--size", "--reference", "--io-blocks")
        )
        for t in targets:
            self.e.check_write(t, st.cwd, ctx.raw)
        return EMPTY_VAL

    def h_cp(self, argv, st, ctx):
        flags, values, ops = parse_opts(
            argv[1:],
            short_with_arg="tSm",
            long_with_arg=("--target-directory", "--suffix", "--mode", "--backup"),
        )
        dest = values.get("t") or values.get("--target-directory")
        if dest is None and len(ops) >= 2:
            dest = ops[-1]
            ops = ops[:-1]
        name = argv[0].known()
        if name == "mv":
            for src in ops:
                self.e.check_move(src, st.cwd, ctx.raw)
        if dest is not None and len(ops) == 1 and dest.known() and ops[0].known():
            # A system binary copied under another name is still that binary when run.
            src_path = self.paths.absolute(ops[0].known(), st.cwd)
            dst_path = self.paths.absolute(dest.known(), st.cwd)
            if src_path and dst_path and posixpath.dirname(src_path) in BIN_DIRS:
                self.e.binary_copies[dst_path] = src_path
        if dest is not None:
            self.e.check_write(dest, st.cwd, ctx.raw)
            if name == "cp" and len(ops) == 1 and dest.known() and ops[0].known():
                src_path = self.paths.absolute(ops[0].known(), st.cwd)
                dst_path = self.paths.absolute(dest.known(), st.cwd)
                if src_path in st.vfs and dst_path:
                    st.vfs[dst_path] = st.vfs[src_path]
        return EMPTY_VAL

    def h_rsync(self, argv, st, ctx):
        flags, _, ops = parse_opts(
            argv[1:],
            short_with_arg="efT",
            long_with_arg=("--rsh", "--filter", "--exclude", "--include", "--temp-dir", "--chmod"),
        )
        if any(f.startswith("--delete") or f == "--remove-source-files" for f in flags) and ops:
            self.e.check_delete(ops[-1], st.cwd, True, True, ctx.raw)
        if ops:
            self.e.check_write(ops[-1], st.cwd, ctx.raw)
        return EMPTY_VAL

    def check_device_operands(self, name, argv, st, ctx):
        """A program the gate has no handler for, given a block device (`ddrescue img /dev/sda`,
        `nvme format /dev/nvme0n1`, `sg_format /dev/sdb`, `pv -o /dev/sda`): it may write it, unless
        it only reads or describes devices (docs/gates.md, disk-writer)."""
        if name in DEVICE_READERS:
            return
        for a in argv[1:]:
            text = a.known()
            candidates = [a]
            if text is not None and "=" in text:
                # `of=/dev/sda`, `--output=/dev/sda`: the value after the first `=`.
                candidates.append(Val.of(text.split("=", 1)[1]))
            for val in candidates:
                devices = self.paths.device_targets(val, st.cwd)
                if devices:
                    self.e.block("disk-writer", ctx.raw, devices[0], note="%s is given a block device" % name)


# Programs that only read or describe a block device: given one, they are not disk writers.
DEVICE_READERS = frozenset(
    {
        "lsblk",
        "blkid",
        "file",
        "stat",
        "hexdump",
        "od",
        "strings",
        "cmp",
        "diff",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "b2sum",
        "cksum",
        "wc",
        "less",
        "more",
        "grep",
        "smartctl",
        "udevadm",
        "findmnt",
        "df",
        "du",
        "mount",
        "test",
        "[",
        "pv",
    }
)
