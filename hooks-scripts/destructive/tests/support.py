"""Shared by the gate's tests: the package on sys.path, an engine on the shipped config, and a
one-call decision helper. Run the tests from hooks-scripts/destructive:

    python3 -m unittest discover -s tests -t .
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GATE_DIR = os.path.dirname(HERE)
CONFIG = os.path.join(GATE_DIR, "config.json")
if GATE_DIR not in sys.path:
    sys.path.insert(0, GATE_DIR)

from destructive_gate.engine import Config, Engine, decide  # noqa: E402


def engine():
    """A fresh analysis on the shipped config.json (workspace /workspace)."""
    return Engine(Config.load(CONFIG))


def decision(code, language="bash"):
    """The gate's decision for one code_execution call."""
    payload = {"tool_call": {"name": "code_execution", "args": {"code": code, "language": language}}}
    return decide(payload, CONFIG)


def denied(code, language="bash"):
    """The deny reason, or None when the call is allowed."""
    result = decision(code, language)
    return result.get("reason") if result["decision"] == "deny" else None
