"""The protocol document the agent ships with: protocol.schema.json beside this file, generated from
the controller's zod schemas (src/sandbox/protocol/, docs/agent-protocol.md). The agent takes its
protocol version and the sandbox's paths from it, so neither is written down twice; the agent's
tests check its answers against the document's JSON Schemas.
"""

import json
import os

DOCUMENT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocol.schema.json")

with open(DOCUMENT_PATH, encoding="utf-8") as _file:
    DOCUMENT = json.load(_file)

VERSION = DOCUMENT["protocol_version"]
PATHS = DOCUMENT["paths"]
