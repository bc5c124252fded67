"""The sandbox agent's own tests: its real answers, checked against the protocol's JSON Schema.

The agent runs as it does for real, in a container of the sandbox image, and is spoken to over its
stdio one JSON line at a time, as the controller does. Every request sent and every answer and
event received is validated against sandbox-image/agent/protocol.schema.json, the document generated
from the controller's zod schemas (docs/agent-protocol.md, Tests); every operation of the document
must be exercised here, so a new operation cannot go untested.

Needs Docker, the image (HOOKBOX_SANDBOX_IMAGE, else `node bin/hookbox.js image build`) and Debian's
python3-jsonschema (scripts/setup.sh installs it).
"""

import base64
import io
import json
import os
import subprocess
import tarfile
import unittest
import uuid
import zipfile

from jsonschema import Draft202012Validator

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(ROOT, "sandbox-image", "agent", "protocol.schema.json"), encoding="utf-8") as handle:
    DOCUMENT = json.load(handle)


def validator(schema):
    return Draft202012Validator(schema)


def sandbox_image():
    image = os.environ.get("HOOKBOX_SANDBOX_IMAGE")
    if image:
        return image
    built = subprocess.run(["node", "bin/hookbox.js", "image", "build"], cwd=ROOT, check=True, capture_output=True, text=True)
    return built.stdout.strip().splitlines()[-1]


def b64(text):
    return base64.b64encode(text.encode()).decode()


class AgentProtocolTest(unittest.TestCase):
    exercised = set()

    @classmethod
    def setUpClass(cls):
        cls.name = f"hookbox-agent-test-{uuid.uuid4().hex[:12]}"
        # The capabilities the controller leaves the agent (src/sandbox/sandbox-options.ts).
        cls.agent = subprocess.Popen(
            ["docker", "run", "--rm", "-i", "--name", cls.name, "--network", "none", "--cap-drop", "ALL",
             "--cap-add", "SETUID", "--cap-add", "SETGID", "--cap-add", "KILL", sandbox_image()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        cls.next_id = 1

    @classmethod
    def tearDownClass(cls):
        cls.agent.stdin.close()
        try:
            cls.agent.wait(timeout=20)
        except subprocess.TimeoutExpired:
            subprocess.run(["docker", "rm", "-f", cls.name], capture_output=True)
            cls.agent.wait()
        operations = set(DOCUMENT["operations"])
        missing = operations - cls.exercised
        assert not missing, f"operations of the protocol no test exercises: {sorted(missing)}"

    def ask(self, op, body, events=None):
        """Sends one request (checked against the schema first); returns the checked answer."""
        operation = DOCUMENT["operations"][op]
        validator(operation["request"]).validate(body)
        request_id = type(self).next_id
        type(self).next_id += 1
        line = {"id": request_id, "op": op, **body}
        validator(DOCUMENT["envelope"]["request"]).validate(line)
        self.agent.stdin.write((json.dumps(line) + "\n").encode())
        self.agent.stdin.flush()
        while True:
            raw = self.agent.stdout.readline()
            self.assertTrue(raw, f"the agent closed its stream during {op}")
            message = json.loads(raw)
            if "event" in message:
                validator(DOCUMENT["envelope"]["output_event"]).validate(message)
                if events is not None:
                    events.append(message)
                continue
            validator(DOCUMENT["envelope"]["answer"]).validate(message)
            self.assertEqual(message["id"], request_id)
            self.assertTrue(message["ok"], f"{op}: {message.get('error')}")
            errors = sorted(validator(operation["answer"]).iter_errors(message["result"]), key=str)
            self.assertEqual([], [f"{list(e.absolute_path)}: {e.message}" for e in errors], f"{op} answered {message['result']!r}")
            type(self).exercised.add(op)
            return message["result"]

    def test_01_ping_reports_the_documents_version(self):
        self.assertEqual(self.ask("ping", {})["protocol"], DOCUMENT["protocol_version"])

    def test_02_sources(self):
        files = [
            {"area": "agents", "path": "hooks.json", "content_b64": b64("{}")},
            {"area": "workspace", "path": "src/a.txt", "content_b64": b64("one\ntwo\nthree\n")},
            {"area": "workspace", "path": "run.sh", "content": "echo hi\n", "executable": True},
        ]
        self.assertEqual(self.ask("write_sources", {"files": files})["written"], 3)
        self.assertEqual(self.ask("replace_agents", {"files": files[:1]})["written"], 1)
        self.assertEqual(self.ask("reset_agents", {}), {"ok": True})

    def test_03_code(self):
        limits = {"timeout_ms": 10_000, "output_cap_bytes": 65_536}
        done = self.ask("run_code", {"code": "echo out; echo err >&2; exit 3", "language": "bash", **limits})
        self.assertEqual([done["exit_code"], done["stdout"], done["stderr"]], [3, "out\n", "err\n"])
        events = []
        self.ask("run_code", {"code": "print('live')", "language": "python", "stream_output": True, **limits}, events)
        self.assertEqual("".join(e["chunk"] for e in events if e["stream"] == "stdout"), "live\n")
        slow = self.ask("run_code", {"code": "sleep 5", "language": "sh", "timeout_ms": 200, "output_cap_bytes": 1024})
        self.assertTrue(slow["timed_out"])
        self.ask("run_code", {"code": "sleep 30 &", "language": "bash", "background_processes": True, "env": {"A": "1"}, **limits})
        self.assertGreaterEqual(self.ask("kill_tool_processes", {})["killed"], 1)

    def test_04_hooks(self):
        limits = {"timeout_ms": 10_000, "output_cap_bytes": 65_536}
        handler = {"key": "h1", "command": "cat", "prestart": True, "env": {"HOOKBOX_EVENT": "pre_tool_execution"}}
        started = self.ask("prestart_hooks", {"generation": 1, "handlers": [handler], "code_language": "python"})
        self.assertEqual(started["code"], 1)
        prestarted = self.ask("run_hook", {
            "command": "cat", "stdin_b64": b64('{"a":1}'), "env": handler["env"], "key": "h1", "generation": 1,
            "prestart": True, **limits,
        })
        self.assertEqual(prestarted["stdout"], '{"a":1}')
        spawned = self.ask("run_hook", {"command": "id -u; kill -9 $$", "stdin": "", **limits})
        self.assertEqual([spawned["runner"], spawned["signal"]], ["spawned", 9])
        # The call's code in the hook's own request: run on a plain allow, not on anything else.
        code = {"code": "echo ran", "language": "bash", **limits}
        allowed = self.ask("run_hook", {"command": "echo '{\"decision\": \"allow\"}'", "stdin": "", **limits, "then_run_code": code})
        self.assertEqual(allowed["then"]["stdout"], "ran\n")
        other = self.ask("run_hook", {"command": "echo '{\"decision\": \"allow\", \"x\": 1}'", "stdin": "", **limits, "then_run_code": code})
        self.assertNotIn("then", other)
        # No proxy answers in a container without a network: the failure is an answer, not an error.
        http = self.ask("http_hook", {
            "url": "http://hooks.example/x", "headers": {"X-A": "1"}, "body_b64": b64("{}"),
            "proxy": "http://127.0.0.1:9", "token": "t", **limits,
        })
        self.assertIsNone(http["exit_code"])
        self.assertIn("failure", http)

    def test_05_file_tools_2026_05(self):
        def tool(name, **args):
            return self.ask("file", {"tool": name, "args": args, "max_read_bytes": 1 << 20})

        self.assertEqual(tool("write_file", path="f/b.txt", content="x"), {"ok": True})
        self.assertEqual(tool("read_file", path="f/b.txt"), {"content": "x"})
        self.assertEqual([e["name"] for e in tool("list_files", path="f")["entries"]], ["b.txt"])
        self.assertEqual(tool("delete_file", path="f/b.txt"), {"ok": True})
        self.assertIn("error", tool("read_file", path="f/b.txt"))

    def test_06_file_tools_2026_09(self):
        def tool(name, **body):
            return self.ask("file_2026_09", {"tool": name, **body})

        tool("write_to_file", path="g/c.txt", content="a\nb\nc\n", overwrite=False)
        self.assertIn("error", tool("write_to_file", path="g/c.txt", content="", overwrite=False))
        view = tool("view_file", path="g/c.txt", start_line=2, end_line=None, content_offset=None,
                    max_read_bytes=1 << 20, max_view_chars=2)
        self.assertTrue(view["truncated"])
        tool("replace_file_content", path="g/c.txt", start_line=1, end_line=1, target_content="a",
             replacement_content="A", max_read_bytes=1 << 20)
        self.assertEqual(len(tool("list_dir", path="g")["entries"]), 1)
        self.assertEqual(len(tool("find_by_name", path="g", pattern="*.txt", max_depth=None, max_results=10)["matches"]), 1)
        grep = tool("grep_search", path="g", query="A", is_regex=False, max_matches=10, max_read_bytes=1 << 20,
                    timeout_ms=10_000, output_cap_bytes=1 << 20)
        self.assertEqual([m["line"] for m in grep["matches"]], [1])
        tool("delete_file", path="g/c.txt")

    def test_07_files_api(self):
        def files(action, **body):
            return self.ask("workspace_files", {"action": action, "max_bytes": 1 << 20, **body})

        self.assertEqual(files("put", path="h/d.txt", data=b64("dd"), overwrite=False), {"bytes": 2})
        self.assertEqual(files("put", path="h/d.txt", data=b64("dd"), overwrite=False)["error_kind"], "exists")
        self.assertEqual(files("get", path="h/d.txt")["type"], "file")
        self.assertEqual(files("get", path="h")["type"], "directory")
        entries = [{"type": "directory", "path": "h/e"}, {"type": "file", "path": "h/e/f", "data": b64("f")}]
        self.assertEqual(files("put_many", entries=entries, overwrite=True), {"files": 1, "bytes": 1})
        self.assertGreater(files("tar", path="h")["size"], 0)
        self.assertEqual(files("delete", path="h/d.txt"), {"deleted": True})
        self.assertEqual(files("get", path="h/missing")["error_kind"], "not_found")
        zipped = io.BytesIO()
        with zipfile.ZipFile(zipped, "w") as archive:
            archive.writestr("z/a.txt", "a")
        tarred = files("zip_to_tar", data=base64.b64encode(zipped.getvalue()).decode())
        with tarfile.open(fileobj=io.BytesIO(base64.b64decode(tarred["data"]))) as archive:
            self.assertEqual(archive.getnames(), ["z/a.txt"])
        self.assertEqual(files("zip_to_tar", data=b64("PK\x03\x04 not a zip"))["error_kind"], "not_archive")


if __name__ == "__main__":
    unittest.main()
