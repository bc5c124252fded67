"""The last step of every template build (docs/templates.md, "What hookbox adds").

Run as root inside `docker build`, after the template's own instructions. It neutralises what a
template could add to weaken the sandbox: setuid and setgid bits and file capabilities are removed
from every file of the image (no-new-privileges already neuters them at run time; this is belt and
braces, as for the sandbox image itself). Then it checks what the runtime relies on: the tool and
hook users, the paths of the contract with their owners and modes, the agent and spawn-as, Python
3.9 or later. A problem fails the build with one line per problem, each starting "hookbox:".
"""

import os
import pwd
import stat
import sys

TOOL_UID, HOOK_UID = 1000, 1001

# path -> (uid, gid, mode) the runtime relies on (sandbox-image/Dockerfile makes them).
PATHS = {
    # root's, writable by the tool group: tool code cannot change its mode (docs/security.md).
    "/workspace": (0, TOOL_UID, 0o775),
    "/.agents": (0, 0, 0o755),
    "/opt/hookbox": (0, 0, 0o700),
    "/opt/hookbox/agents-rw": (0, 0, 0o755),
    "/var/lib/hookbox": (0, 0, 0o755),
    "/var/lib/hookbox/state": (HOOK_UID, HOOK_UID, 0o700),
}
FILES = ["/opt/hookbox/agent/main.py", "/opt/hookbox/bin/spawn-as", "/usr/bin/tini", "/bin/bash", "/bin/sh"]


def seal():
    """Removes setuid/setgid bits and file capabilities on the root file system; returns what changed."""
    changed = []
    root_dev = os.stat("/").st_dev
    for folder, dirs, files in os.walk("/"):
        # Only the image's own file system (not /proc, /sys or the build's mounts).
        dirs[:] = [d for d in dirs if os.lstat(os.path.join(folder, d)).st_dev == root_dev]
        for name in files:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            if info.st_mode & (stat.S_ISUID | stat.S_ISGID):
                os.chmod(path, stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
                changed.append(f"{path}: setuid/setgid bit removed")
            try:
                if "security.capability" in os.listxattr(path, follow_symlinks=False):
                    os.removexattr(path, "security.capability", follow_symlinks=False)
                    changed.append(f"{path}: file capabilities removed")
            except OSError:
                pass
    return changed


def check():
    problems = []
    if sys.version_info < (3, 9):
        problems.append(f"python3 is {sys.version.split()[0]}; the sandbox agent needs 3.9 or later")
    for name, uid in (("tool", TOOL_UID), ("hook", HOOK_UID)):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            problems.append(f"user {name} (uid {uid}) is missing")
            continue
        if (entry.pw_uid, entry.pw_gid) != (uid, uid):
            problems.append(f"user {name} is {entry.pw_uid}:{entry.pw_gid}, must be {uid}:{uid}")
    for path, (uid, gid, mode) in PATHS.items():
        try:
            info = os.stat(path)
        except OSError:
            problems.append(f"{path} is missing")
            continue
        if not stat.S_ISDIR(info.st_mode):
            problems.append(f"{path} must be a directory")
        elif (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) != (uid, gid, mode):
            problems.append(
                f"{path} is {info.st_uid}:{info.st_gid} {oct(stat.S_IMODE(info.st_mode))}, "
                f"must be {uid}:{gid} {oct(mode)}"
            )
    for path in FILES:
        if not os.path.isfile(path):
            problems.append(f"{path} is missing")
    return problems


def main():
    for line in seal():
        print(f"hookbox: {line}")
    problems = check()
    for problem in problems:
        print(f"hookbox: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
