"""engine.py: the configuration, the decision, failing closed."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.support import CONFIG, GATE_DIR, decision

from destructive_gate.engine import RULES, Config, ConfigError, decide  # noqa: E402


class ConfigTest(unittest.TestCase):
    def write(self, data):
        handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(data, handle)
        handle.close()
        self.addCleanup(os.unlink, handle.name)
        return handle.name

    def test_shipped_config_names_every_rule(self):
        with open(CONFIG) as f:
            shipped = json.load(f)
        self.assertEqual(sorted(shipped["rules"]), sorted(RULES))

    def test_unknown_rule_is_an_error(self):
        with self.assertRaises(ConfigError):
            Config.load(self.write({"rules": {"no-such-rule": True}}))

    def test_bad_config_denies(self):
        result = decide({"tool_call": {"name": "code_execution", "args": {"code": "ls"}}}, self.write({"rules": 3}))
        self.assertEqual(result["decision"], "deny")
        self.assertIn("gate-config-error", result["reason"])

    def test_a_rule_switched_off_lets_its_commands_through(self):
        path = self.write({"rules": {"kill-every-process": False}})
        payload = {"tool_call": {"name": "code_execution", "args": {"code": "kill -9 -1"}}}
        self.assertEqual(decide(payload, path), {"decision": "allow"})

    def test_an_edit_between_decisions_takes_effect(self):
        # Config.load keeps the last configuration while the file is unchanged (a worker's events).
        payload = {"tool_call": {"name": "code_execution", "args": {"code": "kill -9 -1"}}}
        path = self.write({"rules": {"kill-every-process": False}})
        self.assertEqual(decide(payload, path), {"decision": "allow"})
        self.assertEqual(decide(payload, path), {"decision": "allow"})
        with open(path, "w") as f:
            json.dump({"rules": {"kill-every-process": True}}, f)
        self.assertEqual(decide(payload, path)["decision"], "deny")
        with open(path, "w") as f:
            f.write("{broken")
        self.assertIn("gate-config-error", decide(payload, path)["reason"])
        missing = path + ".gone"
        self.assertEqual(decide(payload, missing)["decision"], "deny")  # no file: the defaults


class DecisionTest(unittest.TestCase):
    def test_other_tools_are_allowed(self):
        self.assertEqual(decide({"tool_call": {"name": "read_file", "args": {}}}, CONFIG), {"decision": "allow"})

    def test_missing_tool_call_denies(self):
        self.assertEqual(decide({}, CONFIG)["decision"], "deny")

    def test_python_language_is_analysed_as_python(self):
        self.assertEqual(decision("import shutil; shutil.rmtree('/etc')", "python")["decision"], "deny")
        self.assertEqual(decision("print('rm -rf /')", "python")["decision"], "allow")

    def test_gate_script_prints_one_decision(self):
        payload = {"tool_call": {"name": "code_execution", "args": {"code": "rm -rf /"}}}
        run = subprocess.run(
            [sys.executable, os.path.join(GATE_DIR, "gate.py")],
            input=json.dumps(payload).encode(),
            stdout=subprocess.PIPE,
            check=True,
        )
        result = json.loads(run.stdout)
        self.assertEqual(result["decision"], "deny")
        self.assertTrue(result["reason"].startswith("recursive-delete-outside-workspace"), result)

    def test_gate_script_denies_input_that_is_not_json(self):
        run = subprocess.run(
            [sys.executable, os.path.join(GATE_DIR, "gate.py")], input=b"{", stdout=subprocess.PIPE, check=True
        )
        self.assertIn("gate-input-error", json.loads(run.stdout)["reason"])


def load_gate_script():
    spec = importlib.util.spec_from_file_location("destructive_gate_script", os.path.join(GATE_DIR, "gate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WarmUpTest(unittest.TestCase):
    """gate.py runs decide() once on a fixed call before it reads stdin (docs/gates.md, "Prestart
    and workers"): that call must take the shell path and be allowed, and must not change an answer."""

    def test_the_warm_up_call_is_analysed_and_allowed(self):
        gate = load_gate_script()
        self.assertEqual(gate.WARM_UP_EVENT["tool_call"]["args"]["language"], "bash")
        self.assertEqual(decide(gate.WARM_UP_EVENT, CONFIG), {"decision": "allow"})

    def test_a_bad_config_still_denies_the_event_after_the_warm_up(self):
        copy = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, copy)
        shutil.copy(os.path.join(GATE_DIR, "gate.py"), copy)
        shutil.copytree(os.path.join(GATE_DIR, "destructive_gate"), os.path.join(copy, "destructive_gate"))
        with open(os.path.join(copy, "config.json"), "w") as f:
            f.write("{not json")
        payload = {"tool_call": {"name": "code_execution", "args": {"code": "echo hello"}}}
        run = subprocess.run(
            [sys.executable, os.path.join(copy, "gate.py")], input=json.dumps(payload).encode(), stdout=subprocess.PIPE, check=True
        )
        result = json.loads(run.stdout)
        self.assertEqual(result["decision"], "deny")
        self.assertIn("gate-config-error", result["reason"])


if __name__ == "__main__":
    unittest.main()
