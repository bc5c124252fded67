"""Finding, pausing and killing the processes of the tool or the hook user (the sweeps after a
call and around a hook), and what the agent knows of them between requests.

The agent (root, with CAP_KILL) signals them by pid, with no fork: under a fork bomb the pid limit
may leave no room for a helper process. docs/security.md lists what the sweeps guarantee.
"""

import asyncio
import os
import signal

from users import TOOL

# Whether a tool process may be alive other than the interpreter waiting for the next call's code:
# none is once a sweep of the tool user found every one gone, until tool code runs again. A hook
# then has no tool code to pause (docs/gates.md, "One request per gated call").
_tool_code_may_run = True


def tool_code_may_run():
    return _tool_code_may_run


def note_tool_code_runs():
    global _tool_code_may_run
    _tool_code_may_run = True


def _swept(user, spare_sessions):
    global _tool_code_may_run
    if user.uid == TOOL.uid and not spare_sessions:
        _tool_code_may_run = False


# cgroup v1 (the container's own pids controller) and v2 layouts.
_PID_COUNTERS = (
    ("/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/pids/pids.current"),
    ("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids.current"),
)
_pid_counter = None


def _pid_limit():
    """The container's pid limit (None: none) and the file that counts its pids; read once, as
    the controller never changes a running container's limit."""
    global _pid_counter
    if _pid_counter is None:
        _pid_counter = (None, None)
        for limit_path, current_path in _PID_COUNTERS:
            try:
                with open(limit_path) as limit_file:
                    text = limit_file.read().strip()
            except OSError:
                continue
            _pid_counter = (None if text == "max" else int(text), current_path)
            break
    return _pid_counter


async def make_room_for_hook():
    """Kills tool code's processes when they leave a hook too few pids (a quarter of the limit,
    8 to 32: enough to start a gate and its pipelines). Returns how many were killed.

    Only possible with background processes (otherwise none outlive their call). A gate that
    cannot start, or whose pipeline cannot fork, counts as a failed handler, which lets the call
    through: tool code must not be able to switch gates off by using up the pid limit.
    """
    limit, current_path = _pid_limit()
    if limit is None or not _tool_code_may_run:
        return 0
    try:
        with open(current_path) as current_file:
            current = int(current_file.read())
    except (OSError, ValueError):
        return 0
    if limit - current >= max(8, min(32, limit // 4)):
        return 0
    return await kill_user_processes(TOOL)


def _state(path):
    with open(path, "rb") as stat:
        return stat.read().rsplit(b")", 1)[1].split()[0]


def _thread_states(pid, leader_state):
    """The states of a process's threads. Only a process whose main thread has exited (its main
    entry reads Z) is looked at thread by thread: its other threads may still run, and the process
    lives (and takes signals by its pid) until the last of them exits."""
    if leader_state not in (b"Z", b"X"):
        return [leader_state]
    states = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return [leader_state]
    for tid in tids:
        try:
            states.append(_state(f"/proc/{pid}/task/{tid}/stat"))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return states or [leader_state]


def _alive(states):
    return any(state not in (b"Z", b"X") for state in states)


def live_processes_of(user, spare_sessions=frozenset()):
    """PIDs of the user's processes that are not zombies (a zombie is dead, only unreaped), leaving
    out those of the sessions in `spare_sessions`. A process whose main thread exited while another
    thread runs is alive."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != user.uid:
                continue
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            state, session = fields[0], int(fields[3])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
        if session not in spare_sessions and _alive(_thread_states(entry, state)):
            found.append(int(entry))
    return found


def _signal_all(pids, signal_number):
    for pid in pids:
        try:
            os.kill(pid, signal_number)
        except (ProcessLookupError, PermissionError):
            pass


def _stopped_or_dead(pid):
    """True when no thread of the process can run (every one stopped or exited)."""
    try:
        states = _thread_states(pid, _state(f"/proc/{pid}/stat"))
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return all(state in (b"T", b"t", b"Z", b"X") for state in states)


async def pause_user_processes(user, rounds=200, spare_sessions=frozenset()):
    """Stops (SIGSTOP) every running process of `user`, round after round until none runs — a
    stopped process cannot fork — and returns the pids it stopped (not those already stopped)."""
    paused = {}
    for _ in range(rounds):
        running = [pid for pid in live_processes_of(user, spare_sessions) if not _stopped_or_dead(pid)]
        if not running:
            break
        _signal_all(running, signal.SIGSTOP)
        paused.update(dict.fromkeys(running))
        await asyncio.sleep(0)
    return list(paused)


def resume_processes(pids):
    _signal_all(pids, signal.SIGCONT)


async def kill_user_processes(user, rounds=200, spare_sessions=frozenset()):
    """Kills every process of `user`; returns how many were alive at first.

    The agent (root, with CAP_KILL) signals them by pid, with no fork: under a fork bomb the pid
    limit may leave no room for a helper process. First every process is stopped, then all are
    killed at once.
    """
    first = live_processes_of(user, spare_sessions)
    if not first:
        _swept(user, spare_sessions)
        return 0
    await pause_user_processes(user, rounds, spare_sessions)
    for _ in range(rounds):
        pids = live_processes_of(user, spare_sessions)
        if not pids:
            _swept(user, spare_sessions)
            break
        _signal_all(pids, signal.SIGKILL)
        await asyncio.sleep(0.002)
    return len(first)
