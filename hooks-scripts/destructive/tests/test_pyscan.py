"""pyscan.py: the same rules for python code."""

import ast
import unittest

from tests.support import denied


class PythonTest(unittest.TestCase):
    def test_deletes_and_devices(self):
        self.assertIn("recursive-delete-outside-workspace", denied("import shutil\nshutil.rmtree('/usr')", "python"))
        self.assertIn("disk-writer", denied("open('/dev/sda', 'wb').write(b'x')", "python"))

    def test_subprocess_argv_is_a_command(self):
        self.assertIn("recursive-delete-outside-workspace", denied("import subprocess\nsubprocess.run(['rm', '-rf', '/etc'])", "python"))

    def test_signals_to_every_process(self):
        self.assertIn("kill-every-process", denied("import os, signal\nos.kill(-1, signal.SIGKILL)", "python"))
        self.assertIn("kill-every-process", denied("import os\npid = -1\nos.kill(pid, 9)", "python"))
        self.assertIsNone(denied("import os\nos.kill(1234, 9)", "python"))
        self.assertIsNone(denied("import os\nos.kill(-1234, 15)", "python"))

    def test_workspace_work_is_fine(self):
        self.assertIsNone(denied("import shutil\nshutil.rmtree('/workspace/build')", "python"))
        self.assertIsNone(denied("open('out.txt', 'w').write('hi')", "python"))

    def test_python_before_3_10_has_no_match_statement(self):
        # Templates may bring python 3.9 (docs/templates.md), whose ast module has no Match.
        saved = getattr(ast, "Match", None)
        if saved is not None:
            del ast.Match
        try:
            self.assertIsNone(denied("x = 1\npass\ndel x", "python"))
            self.assertIn("recursive-delete-outside-workspace", denied("import shutil\npass\nshutil.rmtree('/usr')", "python"))
        finally:
            if saved is not None:
                ast.Match = saved


if __name__ == "__main__":
    unittest.main()
