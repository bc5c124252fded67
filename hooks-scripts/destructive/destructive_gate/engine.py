"""Configuration, rule checks shared by the shell and python analyses, and the gate's decision."""

import json
import os
import posixpath
import re
import time

from .errors import Blocked
from .pyscan import PythonAnalyzer
from .shell import ShellAnalyzer
from .values import OUTSIDE, ROOT, SENT, UNKNOWN, PathPolicy, Unknown, Val, display, is_under, normalize

# Every rule the gate knows, in the order docs/gates.md describes them.
RULES = (
    "recursive-delete-outside-workspace",
    "delete-outside-workspace",
    "workspace-root-delete",
    "disk-writer",
    "overwrite-outside-workspace",
    "fork-bomb",
    "kill-every-process",
    "permission-change-outside-workspace",
    "git-destructive",
    "download-to-shell",
    "opaque-code-execution",
    "custom-pattern",
)

CONFIG_KEYS = {
    "rules": dict,
    "workspace": str,
    "home": str,
    "allowed_paths": list,
    "blocked_patterns": list,
    "max_depth": int,
    "read_workspace_files": bool,
    "trusted_generators": list,
}

# Files the gate reads from the workspace (scripts run with `bash x.sh`) are capped: a gate that
# reads a 1 GiB file would blow its timeout.
MAX_FILE_BYTES = 512 * 1024
# Wall-clock budget for one analysis. Pathological input (a huge generated script) then fails
# closed with a clear reason instead of hitting the hook timeout.
TIME_BUDGET_S = 5.0

# Tools whose output is shell code meant to be eval'ed (`eval "$(ssh-agent -s)"`): running it is
# not opaque code execution. Configurable: config.json "trusted_generators".
DEFAULT_TRUSTED_GENERATORS = (
    "ssh-agent",
    "dircolors",
    "pyenv",
    "rbenv",
    "nodenv",
    "direnv",
    "opam",
    "conda",
    "mise",
    "fnm",
    "zoxide",
    "starship",
    "brew",
)

# /proc/self/fd/N and friends are the caller's own streams, not system files.
_OWN_FD_RE = re.compile(r"^/proc/(self|thread-self|[0-9]+|\x00)/fd(/|$)")


class ConfigError(Exception):
    pass


class Config:
    def __init__(self, data):
        if not isinstance(data, dict):
            raise ConfigError("the top level must be a JSON object")
        for key, value in data.items():
            if key.startswith("_"):
                continue
            if key not in CONFIG_KEYS:
                raise ConfigError("unknown key %r (known: %s)" % (key, ", ".join(sorted(CONFIG_KEYS))))
            want = CONFIG_KEYS[key]
            if not isinstance(value, want) or (want is int and isinstance(value, bool)):
                raise ConfigError("%r must be a JSON %s" % (key, want.__name__))
        rules = data.get("rules", {})
        for name, on in rules.items():
            if name.startswith("_"):
                continue
            if name not in RULES:
                raise ConfigError("rules: unknown rule %r" % name)
            if not isinstance(on, bool):
                raise ConfigError("rules.%s must be true or false" % name)
        self.enabled = {r: rules.get(r, True) for r in RULES}
        self.workspace = data.get("workspace", "/workspace")
        self.home = data.get("home", self.workspace)
        for key in ("workspace", "home"):
            if not getattr(self, key).startswith("/"):
                raise ConfigError("%s must be an absolute path" % key)
        self.allowed_paths = []
        for p in data.get("allowed_paths", []):
            if not isinstance(p, str) or not p.startswith("/") or p.rstrip("/") == "":
                raise ConfigError("allowed_paths entries must be absolute paths other than /: %r" % (p,))
            self.allowed_paths.append(p)
        self.patterns = []
        for i, entry in enumerate(data.get("blocked_patterns", [])):
            if isinstance(entry, str):
                entry = {"regex": entry}
            if not isinstance(entry, dict) or not isinstance(entry.get("regex"), str):
                raise ConfigError("blocked_patterns[%d] must be a regex string or {name, regex, match}" % i)
            unknown = set(entry) - {"name", "regex", "match"}
            if unknown:
                raise ConfigError("blocked_patterns[%d]: unknown key %r" % (i, sorted(unknown)[0]))
            match = entry.get("match", "command")
            if match not in ("command", "code"):
                raise ConfigError('blocked_patterns[%d].match must be "command" or "code"' % i)
            try:
                rx = re.compile(entry["regex"])
            except re.error as err:
                raise ConfigError("blocked_patterns[%d].regex: %s" % (i, err)) from None
            self.patterns.append((entry.get("name") or entry["regex"], rx, match))
        self.max_depth = data.get("max_depth", 12)
        if not 1 <= self.max_depth <= 40:
            raise ConfigError("max_depth must be between 1 and 40")
        self.read_workspace_files = data.get("read_workspace_files", True)
        self.trusted_generators = frozenset(data.get("trusted_generators", DEFAULT_TRUSTED_GENERATORS))
        if not all(isinstance(t, str) for t in self.trusted_generators):
            raise ConfigError("trusted_generators entries must be command names")

    @staticmethod
    def load(path):
        """The configuration in `path` (the defaults if there is none). Reading and checking it
        costs ~0.3 ms of a worker's ~0.4 ms event on a cold cache, so the last one is kept while
        the file is the same one, unchanged (inode, size, mtime); nothing changes a Config once
        built. In the sandbox /.agents is read-only and a gate swap starts new workers anyway."""
        global _last_loaded
        try:
            info = os.stat(path)
            key = (path, info.st_ino, info.st_size, info.st_mtime_ns)
            if _last_loaded[0] != key:
                with open(path, encoding="utf-8") as f:
                    data = json.load(f)
                _last_loaded = (key, Config(data))
        except FileNotFoundError:
            return Config({})
        except (OSError, ValueError) as err:
            raise ConfigError("%s: %s" % (path, err)) from None
        return _last_loaded[1]


# (the file's key, the Config built from it)
_last_loaded = (None, None)


class Engine:
    """One analysis: the configuration, the path policy and the trail of nested interpreters."""

    def __init__(self, config):
        self.config = config
        self.paths = PathPolicy(config.workspace, config.home, config.allowed_paths)
        self.via = []
        self.deadline = time.monotonic() + TIME_BUDGET_S
        self.calls = {}
        self.traps = []
        self.symlinks = {}  # made by the script itself: link path -> target
        self.binary_copies = {}  # `cp /bin/rm ./x`: copy path -> system binary
        self.paths.resolver = self.resolve_links
        self.shell = ShellAnalyzer(self)
        self.python = PythonAnalyzer(self)

    # -- findings

    def block(self, rule, raw, resolved=None, note=None):
        """Stop the analysis with a deny whose reason names the rule (unless it is switched off)."""
        if not self.config.enabled.get(rule, True):
            return
        raw = " ".join(str(raw).split())
        if len(raw) > 160:
            raw = raw[:157] + "..."
        reason = "%s: %s" % (rule, raw)
        if resolved is not None:
            shown = display(resolved)
            if shown and shown not in raw.split():
                reason += " (resolves to %s)" % shown
        if note:
            reason += " (%s)" % note
        if self.via:
            reason += " [via %s]" % " > ".join(self.via)
        raise Blocked(rule, reason)

    def enter(self, via):
        self.via.append(via)
        if len(self.via) > self.config.max_depth:
            self.block(
                "opaque-code-execution",
                via,
                note="code nested more than %d levels deep" % self.config.max_depth,
            )

    def leave(self):
        self.via.pop()

    def tick(self):
        if time.monotonic() > self.deadline:
            raise Blocked(
                "analysis-budget",
                "analysis-budget: code too large or complex to analyse within %.0f s" % TIME_BUDGET_S,
            )

    def check_custom(self, text):
        for name, rx, match in self.config.patterns:
            if match == "command" and rx.search(text):
                self.block("custom-pattern", text, note="matches %s" % name)

    def check_custom_code(self, code):
        for name, rx, match in self.config.patterns:
            if match == "code" and rx.search(code):
                self.block("custom-pattern", "code matches %s" % name)

    # -- the path rules, shared by every analysis

    def check_delete(self, val, cwd, recursive, forced, raw, tree=False, refuses_dot=False):
        """A deletion of val (recursive: whole trees; tree: every path below a find/walk root).
        refuses_dot: the tool (rm) refuses a last component `.` or `..`; a guess that an unknown
        piece is empty (`rm -rf "./$(cmd)"` -> `./`) then deletes nothing. A literal `rm -rf .`
        is still refused as the attempt it is."""
        texts = None
        if refuses_dot and val.known() is None:
            texts = [t for t in val.instantiate() if t.rstrip("/").rsplit("/", 1)[-1] not in (".", "..")]
        verdict, path = self.paths.classify(val, cwd, texts=texts)
        if verdict == OUTSIDE:
            rule = (
                "recursive-delete-outside-workspace"
                if (recursive or forced or tree)
                else "delete-outside-workspace"
            )
            self.block(rule, raw, path)
        elif verdict == ROOT and (recursive or tree or val.glob):
            self.block("workspace-root-delete", raw, path)

    def check_move(self, val, cwd, raw):
        """A move takes the source away from where it was: a deletion there. Moving entries of the
        workspace around (even `mv * sub/`) is not."""
        verdict, path = self.paths.classify(val, cwd)
        if verdict == OUTSIDE:
            self.block("delete-outside-workspace", raw, path, note="moved away")

    def check_write(self, val, cwd, raw):
        """A write (redirection, dd of=, tee, cp ...) to val."""
        devices = self.paths.device_targets(val, cwd)
        if devices:
            self.block("disk-writer", raw, devices[0])
        # One file written is not a cascade: an unset variable counts as non-empty here.
        verdict, path = self.paths.classify(_nonempty(val), cwd, follow_last=True)
        if verdict == OUTSIDE and not is_under(path, "/dev") and not _OWN_FD_RE.match(path):
            self.block("overwrite-outside-workspace", raw, path)

    def check_perm(self, val, cwd, recursive, raw):
        verdict, path = self.paths.classify(val if recursive else _nonempty(val), cwd, follow_last=True)
        if verdict == OUTSIDE and not _OWN_FD_RE.match(path):
            self.block(
                "permission-change-outside-workspace", raw, path, note="recursive" if recursive else None
            )

    def check_disk_target(self, val, cwd, raw):
        """A filesystem or partition tool: only image files inside the workspace are fine."""
        devices = self.paths.device_targets(val, cwd)
        if devices:
            self.block("disk-writer", raw, devices[0])
        verdict, path = self.paths.classify(_nonempty(val), cwd)
        if verdict in (OUTSIDE, ROOT, UNKNOWN):
            self.block(
                "disk-writer",
                raw,
                path if verdict != UNKNOWN else None,
                note="target is not a file in the workspace",
            )

    # -- files

    def resolve_links(self, path, follow_last):
        """Follow symbolic links the script made (`ln -s`) or that already sit in the workspace."""
        comps = [c for c in path.split("/") if c]
        out, i, hops = "/", 0, 0
        while i < len(comps):
            comp = comps[i]
            cand = normalize(out + "/" + comp)
            if (i < len(comps) - 1 or follow_last) and SENT not in comp and hops < 20:
                target = self.symlinks.get(cand) or self._disk_link(cand)
                if target is not None:
                    hops += 1
                    comps = [c for c in (target + "/" + "/".join(comps[i + 1 :])).split("/") if c]
                    out, i = "/", 0
                    continue
            out = cand
            i += 1
        return out

    def _disk_link(self, path):
        if SENT in path or not self.config.read_workspace_files or not is_under(path, self.paths.workspace):
            return None
        physical = os.path.join(os.getcwd(), path[len(self.paths.workspace) :].lstrip("/"))
        try:
            target = os.readlink(physical)
        except OSError:
            return None
        return normalize(target if target.startswith("/") else posixpath.dirname(path) + "/" + target)

    def read_workspace_file(self, path):
        """Text of a workspace file the code is about to run, or None. The hook's cwd is the
        workspace, so a logical /workspace/x maps to ./x (which also holds in tests)."""
        if not self.config.read_workspace_files or path is None:
            return None
        if not is_under(path, self.paths.workspace):
            return None
        rel = path[len(self.paths.workspace) :].lstrip("/")
        try:
            with open(os.path.join(os.getcwd(), rel), "rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_FILE_BYTES:
            return None
        return data.decode("utf-8", "surrogateescape")

    # -- entry

    def analyze(self, args):
        code = args.get("code")
        if code is None:
            code = args.get("command")
        if isinstance(code, list):  # an argv list, as some clients send
            code = " ".join(str(c) for c in code)
        if not isinstance(code, str) or not code.strip():
            return
        language = str(args.get("language") or "bash").lower()
        self.check_custom_code(code)
        cwd = self.paths.workspace
        if language in ("python", "python3", "py"):
            self.python.analyze(code, cwd, via=None)
        else:
            self.shell.analyze_top(code, cwd, "sh" if language == "sh" else "bash")


def _nonempty(val):
    """The same value with every may-be-empty unknown assumed non-empty."""
    parts = []
    changed = False
    for p in val.parts:
        if isinstance(p, Unknown) and p.maybe_empty and not p.candidates:
            parts.append(Unknown(p.origin, False, p.subpath, None, p.label))
            changed = True
        else:
            parts.append(p)
    return Val(parts, val.glob) if changed else val


def decide(payload, config_path):
    """The decision object for one pre_tool_execution payload."""
    try:
        config = Config.load(config_path)
    except ConfigError as err:
        return {"decision": "deny", "reason": "gate-config-error: %s" % err}
    call = payload.get("tool_call") if isinstance(payload, dict) else None
    if not isinstance(call, dict):
        return {"decision": "deny", "reason": "gate-input-error: payload has no tool_call object"}
    name = call.get("name")
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    if name != "code_execution":
        return {"decision": "allow"}
    engine = Engine(config)
    try:
        engine.analyze(args)
    except Blocked as b:
        return {"decision": "deny", "reason": b.reason}
    except RecursionError:
        return {"decision": "deny", "reason": "opaque-code-execution: code nested too deeply to analyse"}
    except Exception as err:  # a bug in the gate must not let the call through: fail closed, visibly
        return {"decision": "deny", "reason": "gate-error: %s: %s" % (type(err).__name__, err)}
    return {"decision": "allow"}
