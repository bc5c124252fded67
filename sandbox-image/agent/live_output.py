"""Live output of a running command (docs/environments.md, "Live output"): each chunk the command
writes is sent to the controller as it comes, as an event of the request, before the final answer:
`{"id": <request id>, "event": "output", "stream": "stdout"|"stderr", "chunk": <text>}`.

Only what fits under the call's output cap is sent, so the events add up to the answer's
`stdout`/`stderr`. A UTF-8 character split across two reads is sent whole, with the second chunk.
"""

import codecs


def sender(request_id, send):
    """The `on_output(stream, chunk)` callback for processes.run that sends events for `request_id`."""
    decoders = {
        "stdout": codecs.getincrementaldecoder("utf-8")(errors="replace"),
        "stderr": codecs.getincrementaldecoder("utf-8")(errors="replace"),
    }

    def on_output(stream, chunk):
        text = decoders[stream].decode(chunk)
        if text:
            send({"id": request_id, "event": "output", "stream": stream, "chunk": text})

    return on_output
