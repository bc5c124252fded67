"""The one hook answer the agent reads itself: a plain allow, after which the call's code may run
in the hook's own request (docs/gates.md, "One request per gated call"). Every other reading of a
hook's answer is the controller's (src/hooks/decision.ts)."""

import json


def _refuse(name):
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key given twice")
    return dict(pairs)


def plainly_allows(answer):
    """Whether a hook's run reads as an allow beyond doubt: exit 0, no signal, in time, whole, and
    stdout one JSON object of `"decision": "allow"` and at most a string `reason`. Strictly narrower
    than the controller's reading of a pre hook (src/hooks/decision.ts), which allows all of these:
    only then may the call's code run in the hook's own request (docs/gates.md, "One request per
    gated call")."""
    if answer["exit_code"] != 0 or answer.get("signal") is not None or answer["timed_out"] or answer["truncated"]:
        return False
    try:
        parsed = json.loads(answer["stdout"], object_pairs_hook=_unique_keys, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return False
    return (
        isinstance(parsed, dict)
        and parsed.get("decision") == "allow"
        and set(parsed) <= {"decision", "reason"}
        and isinstance(parsed.get("reason", ""), str)
    )
