"""An incremental Server-Sent Events reader that yields typed :class:`StreamEvent` values.

Handles what real servers send: ``event:`` lines (Knowledge Forge puts the type only there),
multi-line ``data:``, CRLF / CR / LF line ends, comments and keep-alives (``:`` lines), ``[DONE]``,
Knowledge Forge's closing ``event: done``, and broken JSON. It never raises on server data:
undecodable payloads become ``StreamEvent("forge.invalid", {...})`` events that the builder
counts, so debug output can show them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from forge_cli.protocol.events import StreamEvent

__all__ = ["INVALID_EVENT", "SSEDecoder", "aiter_sse_events", "iter_sse_events"]

INVALID_EVENT = "forge.invalid"
"""The type given to a frame whose data is not a JSON object."""


class SSEDecoder:
    """Feed bytes in any chunking; get complete events out."""

    __slots__ = ("_buffer", "_data", "_done", "_event", "_pending_cr")

    def __init__(self) -> None:
        self._buffer = b""
        self._event: str | None = None
        self._data: list[str] = []
        self._done = False
        self._pending_cr = False

    @property
    def done(self) -> bool:
        """Whether the stream signalled its end (``[DONE]`` or ``event: done``)."""
        return self._done

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        """Decode one chunk of bytes; return the events it completed."""
        if self._done or not chunk:
            return []
        if self._pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._pending_cr = chunk.endswith(b"\r")
        buffer = self._buffer + chunk
        if b"\r" in buffer:
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = buffer.split(b"\n")
        self._buffer = lines.pop()
        events: list[StreamEvent] = []
        for raw in lines:
            event = self._line(raw.decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)
                if event.type == "done":
                    break
        return events

    def flush(self) -> list[StreamEvent]:
        """Finish: dispatch a last event that was not followed by a blank line."""
        events: list[StreamEvent] = []
        if self._buffer and not self._done:
            event = self._line(self._buffer.decode("utf-8", errors="replace"))
            self._buffer = b""
            if event is not None:
                events.append(event)
        if not self._done:
            event = self._dispatch()
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: str) -> StreamEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None  # comment / keep-alive
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value.strip()
        return None  # id:, retry: and unknown fields are ignored

    def _dispatch(self) -> StreamEvent | None:
        name, data_lines = self._event, self._data
        self._event, self._data = None, []
        if name is None and not data_lines:
            return None
        payload = "\n".join(data_lines)
        if name == "done" or payload.strip() == "[DONE]":
            self._done = True
            return StreamEvent("done", {})
        return _decode(name, payload)


def _decode(name: str | None, payload: str) -> StreamEvent:
    data: Any
    try:
        data = json.loads(payload) if payload.strip() else {}
    except ValueError:
        return StreamEvent(INVALID_EVENT, {"event": name, "raw": payload[:2000]})
    if not isinstance(data, dict):
        return StreamEvent(INVALID_EVENT, {"event": name, "raw": payload[:2000]})
    data_type = data.get("type")
    if isinstance(data_type, str) and data_type and (name is None or name == "message"):
        return StreamEvent(data_type, data)
    if name and name != "message":
        return StreamEvent(name, data)
    if "error" in data and isinstance(data["error"], dict | str):
        return StreamEvent("error", _flatten_http_error(data))
    if data.get("object") == "response":
        return StreamEvent("response.snapshot", {"response": data})
    return StreamEvent(INVALID_EVENT, {"event": name, "raw": payload[:2000]})


def _flatten_http_error(data: dict[str, Any]) -> dict[str, Any]:
    """``{"error": {...}}`` sent mid-stream by some servers, as a flat ``error`` event."""
    error = data["error"]
    if isinstance(error, str):
        return {"type": "error", "message": error, "code": None}
    return {
        "type": "error",
        "message": str(error.get("message") or "the server reported an error"),
        "code": error.get("code") if isinstance(error.get("code"), str) else None,
        "param": error.get("param"),
    }


def iter_sse_events(chunks: Iterable[bytes]) -> Iterator[StreamEvent]:
    """Events from an iterable of byte chunks (stops after the end marker)."""
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
        if decoder.done:
            return
    yield from decoder.flush()


async def aiter_sse_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[StreamEvent]:
    """Events from an async iterable of byte chunks (stops after the end marker)."""
    decoder = SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
        if decoder.done:
            return
    for event in decoder.flush():
        yield event
