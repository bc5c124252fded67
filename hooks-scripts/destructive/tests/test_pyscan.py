"""pyscan.py: the same rules for python code."""

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


if __name__ == "__main__":
    unittest.main()
