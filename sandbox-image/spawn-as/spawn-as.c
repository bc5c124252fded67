/*
 * spawn-as: the last step between the sandbox agent (root) and a command that must run as an
 * unprivileged user.
 *
 *   spawn-as UID GID CWD UMASK FDS OOM_SCORE_ADJ CONFINE PROGRAM [ARG...]
 *
 * PROGRAM is an absolute path (no PATH search). The command keeps descriptors 0 to FDS-1 (3: its
 * stdio; 4 when the agent hands it a script on descriptor 3) and nothing else. OOM_SCORE_ADJ
 * (-1000..1000, or "-" to inherit the agent's) is set while still root: once the user is switched,
 * /proc/self is no longer the process's own to write. CONFINE is "write-only-below" or "-":
 * with it, the command and everything it starts may open files for writing only beneath
 * /workspace, /dev and /tmp (a Landlock ruleset, kept across exec and fork and never undone).
 * Nothing else is writable for tool code anyway but its own /proc files, among them
 * /proc/self/oom_score_adj: without CAP_SYS_RESOURCE, which this machine's engine may not grant,
 * the kernel lets any process lower its score down to 0, and tool code at 0 beside a larger agent
 * makes the agent the OOM killer's choice (README, Security model).
 *
 * The agent starts it with posix_spawn (vfork-like, the agent's memory is never copied) and it
 * drops root with raw set*id calls before exec'ing PROGRAM. CPython can only switch the user of a
 * child through fork(), which copies the agent's page tables: that was most of a tool call's cost.
 * Statically linked against musl so its own exec costs next to nothing (glibc's static start-up
 * measured ~0.6 ms here, this one ~0.05 ms).
 *
 * Errors exit 126 (could not become the user or enter CWD) or 127 (PROGRAM could not be run),
 * with one line on stderr, as a shell would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* Landlock's ABI (linux/landlock.h, which musl's headers lack); the numbers are the same on every
 * architecture. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_RULE_PATH_BENEATH 1
struct landlock_ruleset_attr {
    uint64_t handled_access_fs;
};
struct __attribute__((packed)) landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
};

static int fail(int code, const char *what, const char *detail) {
    fprintf(stderr, "hookbox spawn-as: %s %s: %s\n", what, detail, strerror(errno));
    return code;
}

static int parse_id(const char *text, unsigned long max, unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value > max) return -1;
    *out = value;
    return 0;
}

/*
 * Every signal at its default and none blocked, as in a fresh process. Python leaves SIGPIPE and
 * SIGXFSZ ignored, and glibc's posix_spawn leaves its internal signals (32, 33) ignored in the child;
 * an ignored signal would survive exec into the command. Raw syscalls, because libc refuses to touch
 * its internal signals; an all-zero kernel sigaction is SIG_DFL with no flags and an empty mask
 * whatever the architecture's layout of it.
 */
static void reset_signals(void) {
    unsigned long zero[16];
    memset(zero, 0, sizeof zero);
    for (int sig = 1; sig <= 64; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        syscall(SYS_rt_sigaction, sig, zero, NULL, 8);
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, zero, NULL, 8);
}

static int set_oom_score_adj(const char *text) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < -1000 || value > 1000) {
        fprintf(stderr, "hookbox spawn-as: bad oom_score_adj %s\n", text);
        return -1;
    }
    FILE *file = fopen("/proc/self/oom_score_adj", "w");
    if (file == NULL || fprintf(file, "%ld\n", value) < 0 || fclose(file) != 0) {
        fail(126, "oom_score_adj", text);
        return -1;
    }
    return 0;
}

/* Paths tool code may still open for writing (what is not read-only in the container). */
static const char *const WRITABLE_BENEATH[] = {"/workspace", "/dev", "/tmp"};

/*
 * Restricts opening files for writing to WRITABLE_BENEATH. Returns 0, or -1 when Landlock is not
 * available (kernel older than 5.13, or disabled): the command then runs without it, as before.
 */
static int confine_writes(void) {
    struct landlock_ruleset_attr ruleset = {.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE};
    int ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &ruleset, sizeof ruleset, 0);
    if (ruleset_fd < 0) return -1;
    for (size_t i = 0; i < sizeof WRITABLE_BENEATH / sizeof WRITABLE_BENEATH[0]; i++) {
        int dir = open(WRITABLE_BENEATH[i], O_PATH | O_CLOEXEC);
        if (dir < 0) continue; /* /tmp exists only with writableTmp */
        struct landlock_path_beneath_attr beneath = {
            .allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE, .parent_fd = dir};
        long added = syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
        close(dir);
        if (added != 0) {
            close(ruleset_fd);
            return -1;
        }
    }
    long restricted = syscall(SYS_landlock_restrict_self, ruleset_fd, 0);
    close(ruleset_fd);
    return restricted == 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    unsigned long uid, gid, mask;
    char *end;
    unsigned long fds;
    if (argc < 9) {
        fprintf(stderr, "usage: spawn-as UID GID CWD UMASK FDS OOM_SCORE_ADJ CONFINE PROGRAM [ARG...]\n");
        return 126;
    }
    /* Never a way back to root: the agent only ever asks for its two unprivileged users. */
    if (parse_id(argv[1], 65534, &uid) != 0 || parse_id(argv[2], 65534, &gid) != 0 || uid == 0 || gid == 0) {
        fprintf(stderr, "hookbox spawn-as: refusing uid %s gid %s\n", argv[1], argv[2]);
        return 126;
    }
    errno = 0;
    mask = strtoul(argv[4], &end, 8);
    if (errno != 0 || *end != '\0' || mask > 0777) {
        fprintf(stderr, "hookbox spawn-as: bad umask %s\n", argv[4]);
        return 126;
    }
    if (parse_id(argv[5], 64, &fds) != 0 || fds < 3) {
        fprintf(stderr, "hookbox spawn-as: bad descriptor count %s\n", argv[5]);
        return 126;
    }
    if (strcmp(argv[6], "-") != 0 && set_oom_score_adj(argv[6]) != 0) return 126;
    int confine = strcmp(argv[7], "write-only-below") == 0;
    if (!confine && strcmp(argv[7], "-") != 0) {
        fprintf(stderr, "hookbox spawn-as: bad confinement %s\n", argv[7]);
        return 126;
    }
    /* Only these are the command's; the agent's own descriptors are close-on-exec already. */
    syscall(SYS_close_range, (unsigned)fds, ~0U, 0);
    reset_signals();
    if (setgroups(0, NULL) != 0) return fail(126, "setgroups", "[]");
    if (setresgid(gid, gid, gid) != 0) return fail(126, "setresgid", argv[2]);
    if (setresuid(uid, uid, uid) != 0) return fail(126, "setresuid", argv[1]);
    if (getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid) {
        fprintf(stderr, "hookbox spawn-as: user switch did not hold\n");
        return 126;
    }
    umask((mode_t)mask);
    /* After the switch, so the command's user must be allowed to enter it. */
    if (chdir(argv[3]) != 0) return fail(126, "chdir", argv[3]);
    /* Last, as the user: Landlock needs no privilege (the container sets no_new_privs). */
    if (confine) confine_writes();
    execv(argv[8], argv + 8);
    return fail(127, "exec", argv[8]);
}
