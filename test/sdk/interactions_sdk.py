"""The Python Gemini SDK (google-genai), unchanged, against hookbox: only the base URL and the key.

Run by test/integration/sdk-python.test.ts: `python interactions_sdk.py <scenario>` prints one JSON
object with what the scenario saw; the test asserts on it.
"""
import json
import os
import sys
import time

from google import genai

client = genai.Client(api_key=os.environ["HOOKBOX_KEY"], http_options={"base_url": os.environ["HOOKBOX_URL"]})

GATE = [
    {"type": "inline", "target": ".agents/hooks.json", "content": json.dumps({"security-gate": {"pre_tool_execution": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/gate.py", "timeout": 10}]}]}})},
    {"type": "inline", "target": ".agents/hooks-scripts/gate.py", "content": "import sys, json\ndata = json.load(sys.stdin)\ncmd = str(data.get('tool_call', {}).get('args', {}))\nprint(json.dumps({'decision': 'deny', 'reason': 'Destructive command blocked by security gate.'} if 'rm -rf' in cmd else {'decision': 'allow'}))\n"},
]


def steps_of(interaction):
    return [step.model_dump(mode="json", exclude_none=True) for step in interaction.steps or []]


def basic():
    interaction = client.interactions.create(
        agent="scripted",
        input=[
            {"type": "user_input", "content": [{"type": "text", "text": "Clean up, then say hello."}]},
            {"type": "code_execution_call", "id": "c1", "arguments": {"code": "import os; os.system('rm -rf /tmp/forbidden')", "language": "python"}},
            {"type": "code_execution_call", "id": "c2", "arguments": {"code": "print('hello from python')", "language": "python"}},
        ],
        tools=[{"type": "code_execution"}],
        environment={"type": "remote", "sources": GATE},
        labels={"team": "sdk"},
    )
    got = client.interactions.get(interaction.id)
    return {
        "id": interaction.id,
        "status": interaction.status,
        "step_classes": [type(step).__name__ for step in interaction.steps],
        "steps": steps_of(interaction),
        "environment_id": interaction.environment_id,
        "labels": interaction.labels,
        "usage": interaction.usage.model_dump(exclude_none=True) if interaction.usage else None,
        "got_status": got.status,
        "got_steps": len(got.steps or []),
    }


def stream():
    events = []
    for event in client.interactions.create(
        agent="scripted",
        input=[{"type": "code_execution_call", "id": "c1", "arguments": {"code": "import sys, time\nprint('one', flush=True)\ntime.sleep(0.3)\nprint('two', flush=True)", "language": "python"}}],
        tools=[{"type": "code_execution"}],
        environment="remote",
        stream=True,
    ):
        events.append(event.model_dump(mode="json", exclude_none=True) | {"class": type(event).__name__})
    interaction_id = events[0]["interaction"]["id"]
    resumed = [
        event.model_dump(mode="json", exclude_none=True)
        for event in client.interactions.get(interaction_id, stream=True, last_event_id=events[2]["event_id"])
    ]
    return {"events": events, "resumed": resumed}


def background():
    interaction = client.interactions.create(
        agent="scripted",
        input=[
            {"type": "code_execution_call", "id": "c1", "arguments": {"code": "import time\nprint('started', flush=True)\ntime.sleep(60)\nprint('never')", "language": "python"}},
            {"type": "code_execution_call", "id": "c2", "arguments": {"code": "print('after')", "language": "python"}},
        ],
        tools=[{"type": "code_execution"}],
        environment="remote",
        background=True,
    )
    first = interaction.status
    deadline = time.time() + 30
    while time.time() < deadline:
        seen = client.interactions.get(interaction.id)
        if any(step.type == "code_execution_call" for step in seen.steps or []) or time.time() > deadline:
            break
        time.sleep(0.2)
    time.sleep(0.5)
    cancelled = client.interactions.cancel(interaction.id)
    client.interactions.delete(interaction.id)
    try:
        client.interactions.get(interaction.id)
        gone = None
    except Exception as error:  # the SDK's error class for a 404
        gone = getattr(error, "code", None) or getattr(error, "status_code", None) or type(error).__name__
    return {"first": first, "cancelled": cancelled.status, "steps": steps_of(cancelled), "gone": gone}


def ask():
    sources = [
        {"type": "inline", "target": ".agents/hooks.json", "content": json.dumps({"asker": {"pre_tool_execution": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/ask.py"}]}]}})},
        {"type": "inline", "target": ".agents/hooks-scripts/ask.py", "content": "import json\nprint(json.dumps({'decision': 'ask', 'reason': 'a human should look'}))\n"},
    ]
    waiting = client.interactions.create(
        agent="scripted",
        input=[{"type": "code_execution_call", "id": "c1", "arguments": {"code": "print('approved run')", "language": "python"}}],
        tools=[{"type": "code_execution"}],
        environment={"type": "remote", "sources": sources},
    )
    pending = waiting.model_dump(mode="json")
    call_id = pending["pending_approvals"][0]["call_id"]
    answered = client.interactions.create(
        agent="scripted",
        previous_interaction_id=waiting.id,
        input=[{"type": "function_result", "call_id": call_id, "name": "approval", "result": {"approve": True, "reason": "looked fine"}}],
    )
    return {"waiting": waiting.status, "call_id": call_id, "answered": answered.status, "steps": steps_of(answered)}


print(json.dumps(globals()[sys.argv[1]]()))
