"""The JSON inside an HTTP error body, also when a server sent it as an event stream.

Some servers (LiteLLM proxies, vLLM, llama.cpp behind a gateway) answer a failed streaming
request with an error status and an SSE body: ``data: {"error": {...}}`` then ``data: [DONE]``.
The error line must show the message, not the raw frames.
"""

from __future__ import annotations

from typing import Any

from forge_cli import jsonsafe

__all__ = ["error_json"]

_MAX_FRAMES = 16


def error_json(text: str) -> Any:
    """``text`` parsed as JSON, else the first JSON object of its ``data:`` lines, else None."""
    try:
        return jsonsafe.loads(text)  # depth-limited: the body comes from the server
    except ValueError:
        pass
    if "data:" not in text:
        return None
    frames = 0
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        frames += 1
        if frames > _MAX_FRAMES:
            break
        payload = line[5:].strip()
        try:
            value = jsonsafe.loads(payload)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None
