"""shparse.py: the tolerant sh/bash parser."""

import unittest

from tests.support import GATE_DIR  # noqa: F401 - puts the package on sys.path

from destructive_gate import shparse  # noqa: E402


def simple(src):
    """The first simple command of src."""
    node = shparse.parse(src)
    return node.items[0][0].pipelines[0].cmds[0]


class ParserTest(unittest.TestCase):
    def test_words_and_quoting(self):
        cmd = simple("""rm -rf 'a b' "c" \\d""")
        self.assertEqual([w.literal() for w in cmd.words], ["rm", "-rf", "a b", "c", "d"])

    def test_empty_quotes_are_a_word(self):
        self.assertEqual([w.literal() for w in simple('x "" \'\'').words], ["x", "", ""])

    def test_assignments_and_redirections_are_not_words(self):
        cmd = simple("A=1 B='2 3' cmd arg >out 2>&1 <in")
        self.assertEqual([w.literal() for w in cmd.words], ["cmd", "arg"])
        self.assertEqual([name for name, _, _ in cmd.assigns], ["A", "B"])
        self.assertEqual(len(cmd.redirs), 3)

    def test_pipelines_and_lists(self):
        node = shparse.parse("a | b && c; d &")
        self.assertEqual(len(node.items), 2)
        first = node.items[0][0]
        self.assertEqual(len(first.pipelines), 2)
        self.assertEqual(len(first.pipelines[0].cmds), 2)

    def test_expansions_are_parts(self):
        kinds = [p[0] for p in simple('echo "$x" $(id) $((1+2)) `pwd`').words[1].parts]
        self.assertEqual(kinds, ["param"])
        self.assertEqual([w.parts[0][0] for w in simple("echo $(id) $((1+2)) `pwd`").words[1:]], ["cmd", "arith", "cmd"])

    def test_arith_keeps_its_text(self):
        part = simple("echo $((7 * 3))").words[1].parts[0]
        self.assertEqual(part[3].strip(), "7 * 3")

    def test_deep_nesting_is_refused_not_crashed(self):
        with self.assertRaises((shparse.TooDeep, RecursionError)):
            shparse.parse("$(" * 500 + ")" * 500)


if __name__ == "__main__":
    unittest.main()
