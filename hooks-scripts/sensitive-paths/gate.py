#!/usr/bin/env python3
"""hookbox sensitive-path gate: a pre_tool_execution hook for the file tools and code_execution.

Blocks reading, writing, deleting, listing or searching private keys, .env files, credential files
and any path pattern configured in config.json (like the privacy gate of the Gemini hooks page that
keeps agents out of /workspace/private/). Both tool vocabularies are understood:

  2026-05: read_file/write_file/delete_file/list_files {path}
  2026-09: view_file {AbsolutePath}, write_to_file / replace_file_content {TargetFile},
           list_dir {DirectoryPath}, delete_file {TargetFile|AbsolutePath|path},
           find_by_name {SearchDirectory}, grep_search {SearchPath}

Relative paths are resolved against the workspace and `..` is normalised; symbolic links that
exist in the workspace are followed too. For code_execution, every path-like word of shell code
(split with shlex) and every string literal of python code (read with ast) is checked: a best
effort that catches `cat .env` or `open('id_rsa')`, not a guarantee (see docs/gates.md).

Prints exactly one JSON object. Run it with "on_error": "deny".
"""

import ast
import json
import os
import posixpath
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Path-valued arguments of every file tool of both vocabularies.
PATH_ARGS = {
    "read_file": ("path",),
    "write_file": ("path",),
    "delete_file": ("path", "TargetFile", "AbsolutePath"),
    "list_files": ("path",),
    "view_file": ("AbsolutePath",),
    "write_to_file": ("TargetFile",),
    "replace_file_content": ("TargetFile",),
    "list_dir": ("DirectoryPath",),
    "find_by_name": ("SearchDirectory",),
    "grep_search": ("SearchPath",),
}
# Tools that read the content of every file under a directory.
SEARCH_TOOLS = frozenset({"grep_search"})
# Any other argument whose name looks like a path is checked as well (future tools, extensions).
GENERIC_PATH_ARG = re.compile(r"(path|file|dir|directory)$", re.I)

CONFIG_KEYS = {
    "workspace": str,
    "home": str,
    "categories": dict,
    "blocked_paths": list,
    "allowed_paths": list,
    "check_code": bool,
    "follow_symlinks": bool,
    "max_search_entries": int,
}


class ConfigError(Exception):
    pass


def glob_regex(pattern):
    """A path glob -> regex. `**` spans directories, `*` and `?` stay within one, `[...]` is a
    class. A pattern without a leading / matches at any depth (as if it began with **/). A
    pattern ending in /** also matches the directory itself."""
    if not pattern.startswith("/") and not pattern.startswith("**"):
        pattern = "**/" + pattern
    out, i, n = ["^"], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    out.append("$")
    return re.compile("".join(out))


def pattern_example(pattern):
    """A concrete path the pattern matches (`**/*.pem` -> `x.pem`): lets the gate ask whether a
    glob written in code (`cat ~/.ssh/id_*`) could reach a sensitive file."""
    ex = (
        pattern.replace("**/", "").replace("/**", "/x").replace("**", "x").replace("*", "x").replace("?", "x")
    )
    return re.sub(r"\[[^\]]*\]", "x", ex)


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
        self.workspace = posixpath.normpath(data.get("workspace", "/workspace"))
        self.home = posixpath.normpath(data.get("home", self.workspace))
        self.rules = []  # (category, pattern, regex)
        for category, patterns in data.get("categories", {}).items():
            if category.startswith("_"):
                continue
            if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
                raise ConfigError("categories.%s must be a list of path patterns" % category)
            self.rules.extend((category, p, glob_regex(p)) for p in patterns)
        for p in data.get("blocked_paths", []):
            if not isinstance(p, str) or not p.startswith("/"):
                raise ConfigError("blocked_paths entries must be absolute path patterns: %r" % (p,))
            self.rules.append(("configured-path", p, glob_regex(p)))
        self.allowed = []
        for p in data.get("allowed_paths", []):
            if not isinstance(p, str) or not p:
                raise ConfigError("allowed_paths entries must be path patterns: %r" % (p,))
            self.allowed.append(glob_regex(p))
        self.check_code = data.get("check_code", True)
        self.follow_symlinks = data.get("follow_symlinks", True)
        self.max_search_entries = data.get("max_search_entries", 20000)

    @staticmethod
    def load(path):
        """The configuration in `path`. Building it compiles every pattern (~0.4 ms), so a worker
        keeps the last one while the file is the same one, unchanged (inode, size, mtime). In the
        sandbox /.agents is read-only and a gate swap starts new workers anyway."""
        global _last_loaded
        try:
            info = os.stat(path)
            key = (path, info.st_ino, info.st_size, info.st_mtime_ns)
            if _last_loaded[0] != key:
                with open(path, encoding="utf-8") as f:
                    _last_loaded = (key, Config(json.load(f)))
        except FileNotFoundError:
            raise ConfigError("%s is missing" % path) from None
        except (OSError, ValueError) as err:
            raise ConfigError("%s: %s" % (path, err)) from None
        return _last_loaded[1]


# (the file's key, the Config built from it)
_last_loaded = (None, None)


class Blocked(Exception):
    pass


class Gate:
    def __init__(self, config):
        self.c = config

    # -- paths

    def resolve(self, text):
        """Workspace-relative, ~ and $HOME expanded, `..` normalised. None for non-paths."""
        if not isinstance(text, str) or not text or "\0" in text:
            return None
        if text == "~" or text.startswith("~/"):
            text = self.c.home + text[1:]
        text = re.sub(r"^\$(HOME|\{HOME\})(?=/|$)", lambda _: self.c.home, text)
        if not text.startswith("/"):
            text = self.c.workspace + "/" + text
        return posixpath.normpath(text).replace("//", "/")

    def physical(self, path):
        """The file behind a logical path. The hook's cwd is the workspace, so /workspace/x is ./x
        (which also holds when the gate is tested outside the sandbox)."""
        ws = self.c.workspace
        if path == ws or path.startswith(ws + "/"):
            return os.path.join(os.getcwd(), path[len(ws) :].lstrip("/")) or "."
        return path

    def real(self, path):
        """The logical path with symbolic links in the workspace followed (a link named notes.txt
        may point at ~/.ssh/id_rsa)."""
        if not self.c.follow_symlinks:
            return path
        comps = [c for c in path.split("/") if c]
        out, i, hops = "/", 0, 0
        while i < len(comps):
            cand = posixpath.join(out, comps[i])
            try:
                target = os.readlink(self.physical(cand)) if hops < 40 else None
            except (OSError, ValueError):
                target = None
            if target is not None:
                hops += 1
                base = target if target.startswith("/") else posixpath.join(posixpath.dirname(cand), target)
                comps = [c for c in posixpath.normpath(base + "/" + "/".join(comps[i + 1 :])).split("/") if c]
                out, i = "/", 0
                continue
            out = cand
            i += 1
        return out

    def category(self, path, glob=False):
        if any(rx.match(path) for rx in self.c.allowed):
            return None
        for category, pattern, rx in self.c.rules:
            if rx.match(path):
                return category
            if glob:
                # A glob in code: could it name a file this pattern protects?
                example = pattern_example(pattern)
                k = example.count("/") + 1 if not example.startswith("/") else None
                tail = "/".join(path.split("/")[-k:]) if k else path
                try:
                    if re.fullmatch(_fnmatch_regex(tail), example):
                        return category
                except re.error:
                    pass
        return None

    def check_path(self, text, what, glob=False):
        path = self.resolve(text)
        if path is None:
            return
        for candidate in dict.fromkeys((path, self.real(path))):
            category = self.category(candidate, glob)
            if category:
                shown = path if candidate == path else "%s -> %s" % (path, candidate)
                raise Blocked("sensitive-path:%s: %s %s" % (category, what, shown))

    def check_search_root(self, text, what):
        """grep_search reads every file under its root: refuse when one of them is sensitive."""
        path = self.resolve(text)
        if path is None:
            return
        root = self.physical(self.real(path))
        if not os.path.isdir(root):
            return
        seen = 0
        for dirpath, dirnames, filenames in os.walk(root):
            rel = os.path.relpath(dirpath, root)
            logical_dir = path if rel == "." else posixpath.join(path, rel.replace(os.sep, "/"))
            for name in dirnames + filenames:
                seen += 1
                if seen > self.c.max_search_entries:
                    raise Blocked(
                        "sensitive-path:search-too-large: %s %s has more than %d entries to check"
                        % (what, path, self.c.max_search_entries)
                    )
                logical = posixpath.join(logical_dir, name)
                category = self.category(logical)
                if category:
                    raise Blocked(
                        "sensitive-path:%s: %s %s would search %s" % (category, what, path, logical)
                    )
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]

    # -- tools

    def check_call(self, name, args):
        if name == "code_execution":
            if self.c.check_code:
                code = args.get("code", args.get("command"))
                if isinstance(code, str):
                    self.check_code(code, str(args.get("language") or "bash"))
            return
        keys = list(PATH_ARGS.get(name, ()))
        keys += [k for k in args if k not in keys and GENERIC_PATH_ARG.search(k)]
        for key in keys:
            value = args.get(key)
            if isinstance(value, str):
                self.check_path(value, name)
                if name in SEARCH_TOOLS:
                    self.check_search_root(value, name)

    def check_code(self, code, language):
        what = "code_execution names"
        for word, glob in code_paths(code, language):
            self.check_path(word, what, glob)


def _fnmatch_regex(glob_text):
    import fnmatch

    return fnmatch.translate(glob_text)


_WORD_FALLBACK = re.compile(r"[^\s'\"`;|&<>(){}]+")
_REDIRECT_PREFIX = re.compile(r"^(\d*[<>]+[&|]?|&>+)")


def code_paths(code, language):
    """(candidate path, is_glob) pairs named by a piece of code."""
    if language in ("python", "python3", "py"):
        words = _python_strings(code)
    else:
        words = _shell_words(code)
    seen = set()
    for w in words:
        for part in _split_word(w):
            if part and part not in seen and not re.search(r"\s", part):
                seen.add(part)
                yield part, any(c in part for c in "*?[")


def _python_strings(code):
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _WORD_FALLBACK.findall(code)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            value = node.value.decode("utf-8", "replace") if isinstance(node.value, bytes) else node.value
            out.append(value)
    return out


def _shell_words(code):
    # shlex does the quote removal and drops comments. But shlex also starts a comment at a `#`
    # inside a word, where the shell does not (`echo a#b; cat .env` would hide the cat): such
    # `#`s are swapped for a placeholder first and put back afterwards.
    text = re.sub(r"(?<=\S)#", "\x01", code)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    try:
        return [w.replace("\x01", "#") for w in lexer]
    except ValueError:  # unbalanced quotes: fall back to a plain split
        return _WORD_FALLBACK.findall(code)


def _split_word(word):
    """`--env-file=.env`, `KEY=~/.aws/credentials`, `2>.env`, `$(cat` ... -> the path-like parts."""
    word = _REDIRECT_PREFIX.sub("", word)
    word = re.sub(r"\$(\{HOME\}|HOME)(?=/|$)", "~", word)
    parts = []
    if "=" in word:
        parts.extend(word.split("="))
    if ":" in word and "://" not in word:
        parts.extend(word.split(":"))
    parts.append(word)
    return [p.strip("`$(){}\"'") for p in parts]


def decide(payload, config_path):
    try:
        config = Config.load(config_path)
    except ConfigError as err:
        return {"decision": "deny", "reason": "gate-config-error: %s" % err}
    call = payload.get("tool_call") if isinstance(payload, dict) else None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return {"decision": "deny", "reason": "gate-input-error: payload has no tool_call object"}
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    try:
        Gate(config).check_call(call["name"], args)
    except Blocked as b:
        return {"decision": "deny", "reason": str(b)}
    except Exception as err:  # a bug in the gate must not let the call through: fail closed, visibly
        return {"decision": "deny", "reason": "gate-error: %s: %s" % (type(err).__name__, err)}
    return {"decision": "allow"}


# A first decision in a fresh process is ~2.5 ms slower than the next (the configuration's patterns,
# cold code paths). One on this fixed, harmless call before stdin is read takes that off the event
# when the process is started ahead (docs/gates.md, "Prestart and workers"). It holds nothing of
# any event; the configuration it loads is the one the event would load.
WARM_UP_EVENT = {
    "hook_event_name": "pre_tool_execution",
    "tool_call": {"name": "code_execution", "args": {"language": "bash", "code": "cat notes.txt | head -n 5"}},
}


def warm_up():
    try:
        decide(WARM_UP_EVENT, os.path.join(HERE, "config.json"))
    except Exception:  # the real event meets the same fault and answers for it
        pass


def serve_worker():
    """Worker mode (hookbox sets HOOKBOX_WORKER=1 for a handler with "worker": true; see
    docs/gates.md, "Prestart and workers"): one {"env": {...}, "event": {...}} line in, one
    decision line out, until stdin closes. Anything that goes wrong ends the worker: hookbox then
    answers the event with a one-shot run of this script."""
    config_path = os.path.join(HERE, "config.json")
    for line in sys.stdin.buffer:
        message = json.loads(line.decode("utf-8", "surrogateescape"))
        os.environ.update(message.get("env") or {})
        sys.stdout.write(json.dumps(decide(message.get("event"), config_path)) + "\n")
        sys.stdout.flush()


def main():
    warm_up()
    if os.environ.get("HOOKBOX_WORKER") == "1":
        serve_worker()
        return
    try:
        payload = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogateescape") or "null")
    except ValueError as err:
        payload = None
        decision = {"decision": "deny", "reason": "gate-input-error: stdin is not JSON (%s)" % err}
    else:
        decision = decide(payload, os.path.join(HERE, "config.json"))
    sys.stdout.write(json.dumps(decision) + "\n")
    # The answer is out: skip the interpreter's tear-down (docs/gates.md "Prestart and workers").
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
