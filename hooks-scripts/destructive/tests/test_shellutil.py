"""shellutil.py: option parsing and value helpers shared by the handlers."""

import unittest

from tests.support import GATE_DIR  # noqa: F401 - puts the package on sys.path

from destructive_gate.shellutil import has_glob, join_vals, parse_opts, unescape  # noqa: E402
from destructive_gate.values import Val  # noqa: E402


class ShellUtilTest(unittest.TestCase):
    def test_parse_opts_separates_flags_values_operands(self):
        flags, values, operands = parse_opts(
            [Val.of(w) for w in ["-rf", "-n", "3", "--size=4", "a", "--", "-b"]],
            short_with_arg="n",
            long_with_arg=("--size",),
        )
        self.assertIn("r", flags)
        self.assertIn("f", flags)
        self.assertEqual(values["n"].known(), "3")
        self.assertEqual(values["--size"].known(), "4")
        self.assertEqual([o.known() for o in operands], ["a", "-b"])

    def test_has_glob(self):
        self.assertTrue(has_glob("*.txt"))
        self.assertTrue(has_glob("a?"))
        self.assertFalse(has_glob("plain"))

    def test_join_vals(self):
        self.assertEqual(join_vals([Val.of("a"), Val.of("b")]).known(), "a b")

    def test_unescape_like_echo_e_and_printf(self):
        self.assertEqual(unescape("a\\nb\\x41\\101", printf=True), "a\nbAA")


if __name__ == "__main__":
    unittest.main()
