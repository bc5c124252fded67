"""shell.py: expansion and field splitting as bash does them (cases the property test found)."""

import unittest

from tests.support import engine

from destructive_gate.values import EMPTY_VAL  # noqa: E402


def words(code):
    """The words of the last `argv` call in code, as the gate resolves them."""
    e = engine()
    seen = []
    original = e.shell.dispatch

    def dispatch(argv, st, ctx):
        if argv and argv[0].known() == "argv":
            seen.append([v.known() for v in argv[1:]])
            return EMPTY_VAL
        return original(argv, st, ctx)

    e.shell.dispatch = dispatch
    e.shell.analyze_top(code, "/workspace")
    return seen[-1]


class ExpansionTest(unittest.TestCase):
    def test_empty_quotes_are_words(self):
        self.assertEqual(words('argv "" a \'\''), ["", "a", ""])

    def test_quoted_empty_piece_does_not_survive_a_split(self):
        self.assertEqual(words("v=' '; argv \"a\"$v"), ["a"])
        self.assertEqual(words("v='x '; argv $v\"\""), ["x", ""])

    def test_constant_arithmetic(self):
        self.assertEqual(words("argv $((7*3-1)) $((-7/2)) $((-7%2)) $((x+1))"), ["20", "-3", "-1", None])

    def test_positional_parameters(self):
        self.assertEqual(words("set -- a 'b c' d; argv ${#@} ${#*} \"$*\""), ["3", "3", "a b c d"])
        self.assertEqual(words("set -- a 'b c'; IFS=:; argv \"$*\" $@"), ["a:b c", "a", "b c"])
        self.assertEqual(words("set -- xa yb; argv ${*#?}"), ["a", "b"])

    def test_non_whitespace_ifs_delimits_empty_fields(self):
        self.assertEqual(words("v='a,,b'; IFS=','; argv $v"), ["a", "", "b"])
        self.assertEqual(words("v='a , b'; IFS=', '; argv $v"), ["a", "b"])


if __name__ == "__main__":
    unittest.main()
