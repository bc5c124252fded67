"""values.py: partially known strings and the path policy."""

import unittest

from tests.support import GATE_DIR  # noqa: F401 - puts the package on sys.path

from destructive_gate.values import (  # noqa: E402
    INSIDE,
    OUTSIDE,
    ROOT,
    PathPolicy,
    Unknown,
    Val,
    is_under,
    normalize,
)


class ValTest(unittest.TestCase):
    def test_known_text_merges_and_unknown_is_none(self):
        self.assertEqual(Val(("a", "", "b")).known(), "ab")
        self.assertEqual(Val().known(), "")
        self.assertIsNone(Val(("a", Unknown("var"))).known())

    def test_concatenation_keeps_glob(self):
        joined = Val.of("a") + Val(("*",), glob=True)
        self.assertEqual(joined.known(), "a*")
        self.assertTrue(joined.glob)

    def test_instantiate_tries_empty_for_a_maybe_empty_unknown(self):
        texts = Val(("/tmp/", Unknown("var", maybe_empty=True))).instantiate()
        self.assertIn("/tmp/", texts)
        self.assertTrue(len(texts) >= 2)

    def test_unknowns_reaches_into_candidates(self):
        inner = Unknown("var")
        outer = Unknown("choice", candidates=[Val((inner,))])
        self.assertEqual(list(Val((outer,)).unknowns()), [outer, inner])


class PathsTest(unittest.TestCase):
    def setUp(self):
        self.paths = PathPolicy("/workspace", "/workspace", ["/data"])

    def test_normalize_and_is_under(self):
        self.assertEqual(normalize("/a/./b/../c//d/"), "/a/c/d")
        self.assertTrue(is_under("/workspace/x", "/workspace"))
        self.assertFalse(is_under("/workspacex", "/workspace"))
        self.assertTrue(is_under("/workspace", "/workspace", or_equal=True))

    def test_classify(self):
        self.assertEqual(self.paths.classify(Val.of("x/y"), "/workspace")[0], INSIDE)
        self.assertEqual(self.paths.classify(Val.of("../etc"), "/workspace")[0], OUTSIDE)
        self.assertEqual(self.paths.classify(Val.of("/workspace"), "/")[0], ROOT)
        self.assertEqual(self.paths.classify(Val.of("/data/file"), "/")[0], INSIDE)

    def test_device_targets_skip_harmless_devices(self):
        self.assertEqual(self.paths.device_targets(Val.of("/dev/sda"), "/"), ["/dev/sda"])
        self.assertEqual(self.paths.device_targets(Val.of("../dev/nvme0n1"), "/workspace"), ["/dev/nvme0n1"])
        for harmless in ("/dev/null", "/dev/zero", "/dev/stdout", "/dev/fd/3", "/dev/tcp/h/80", "x"):
            self.assertEqual(self.paths.device_targets(Val.of(harmless), "/workspace"), [], harmless)


if __name__ == "__main__":
    unittest.main()
