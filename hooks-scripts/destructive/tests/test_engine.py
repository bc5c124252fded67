"""engine.py: the configuration, the decision, failing closed."""

import json
import os
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


if __name__ == "__main__":
    unittest.main()
