"""An incremental Server-Sent Events reader that yields typed :class:`StreamEvent` values.

Handles what real servers send: ``event:`` lines (Knowledge Forge puts the type only there),
multi-line ``data:``, CRLF / CR / LF line ends, comments and keep-alives (``:`` lines), ``[DONE]``,
Knowledge Forge's closing ``event: done``, and broken JSON. It never raises on server data:
undecodable payloads become ``StreamEvent("forge.invalid", {...})`` events that the builder
counts, so debug output can show them.

Bounded and linear (``docs/security.md``): lines are split in time linear in their length; a line
or an event larger than the limit stops the stream with a :class:`ProtocolError` naming the
setting that raises it; a payload nested deeper than the JSON limit is an invalid event.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from forge_cli import jsonsafe
from forge_cli.errors import ProtocolError
from forge_cli.limits import DEFAULT_LIMITS, describe_bytes
from forge_cli.protocol.events import StreamEvent

__all__ = [
    "INVALID_EVENT",
    "LineSplitter",
    "SSEDecoder",
    "aiter_sse_events",
    "event_too_large",
    "iter_sse_events",
]

INVALID_EVENT = "forge.invalid"
"""The type given to a frame whose data is not a JSON object (or nests too deeply)."""


def event_too_large(what: str, limit: int) -> ProtocolError:
    """The error for an SSE line or event over the limit, naming the setting that raises it."""
    return ProtocolError(
        f"the server sent {what} larger than {describe_bytes(limit)}; the stream was stopped",
        hint="raise limits.max_event_mb (FORGE_MAX_EVENT_MB) if the server is trusted",
    )


class LineSplitter:
    """Bytes in any chunking → complete lines (CRLF, CR or LF), in time linear in the input.

    A partial line is kept as a list of pieces and joined once, when its end arrives, so a huge
    line fed in small chunks costs O(n), not O(n²). A line longer than ``max_line`` raises
    :func:`event_too_large` as soon as it passes the limit, before more of it is held.
    """

    __slots__ = ("_max_line", "_pending_cr", "_pieces", "_size")

    def __init__(self, max_line: int = DEFAULT_LIMITS.max_event_bytes) -> None:
        self._max_line = max_line
        self._pieces: list[bytes] = []
        self._size = 0
        self._pending_cr = False

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines ``chunk`` completed, without their line ends."""
        if not chunk:
            return []
        if self._pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._pending_cr = chunk.endswith(b"\r")
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        parts = chunk.split(b"\n")
        tail = parts.pop()
        if parts:
            if self._pieces:
                self._pieces.append(parts[0])
                parts[0] = b"".join(self._pieces)
                self._pieces = []
            self._check(len(max(parts, key=len)))
            self._size = 0
        if tail:
            self._size += len(tail)
            self._check(self._size)
            self._pieces.append(tail)
        return parts

    def flush(self) -> bytes | None:
        """The last line when the input did not end with a line end."""
        if not self._pieces:
            return None
        line = b"".join(self._pieces)
        self._pieces, self._size = [], 0
        return line

    def _check(self, size: int) -> None:
        if size > self._max_line:
            self._pieces, self._size = [], 0
            raise event_too_large("a line", self._max_line)


class SSEDecoder:
    """Feed bytes in any chunking; get complete events out.

    ``max_event`` bounds one line and one event's data (raises :func:`event_too_large`);
    ``max_depth`` bounds JSON nesting (a deeper payload is an invalid event; the stream goes on).
    """

    __slots__ = ("_data", "_data_size", "_done", "_event", "_lines", "_max_depth", "_max_event")

    def __init__(
        self, *, max_event: int = DEFAULT_LIMITS.max_event_bytes, max_depth: int | None = None
    ) -> None:
        self._lines = LineSplitter(max_event)
        self._max_event = max_event
        self._max_depth = max_depth
        self._event: str | None = None
        self._data: list[str] = []
        self._data_size = 0
        self._done = False

    @property
    def done(self) -> bool:
        """Whether the stream signalled its end (``[DONE]`` or ``event: done``)."""
        return self._done

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        """Decode one chunk of bytes; return the events it completed."""
        if self._done or not chunk:
            return []
        lines = self._lines.feed(chunk)
        if not lines:
            return []
        # One decode per chunk: a line end is never part of a UTF-8 sequence, so decoding the
        # joined lines gives the same text as decoding each line.
        text = b"\n".join(lines).decode("utf-8", errors="replace")
        frames: list[_Frame] = []
        data = self._data
        for line in text.split("\n"):
            if line.startswith("data: "):  # the common line, inline (see _line)
                value = line[6:]
                self._data_size += len(value) + 1
                if self._data_size > self._max_event:
                    self._line(line)  # raises event_too_large
                data.append(value)
                continue
            if line.startswith("event: "):
                self._event = line[7:].strip()
                continue
            frame = self._frame() if not line else self._line(line)
            data = self._data
            if frame is not None:
                frames.append(frame)
                if frame is _DONE:
                    break
        return _decode_frames(frames, self._max_depth)

    def flush(self) -> list[StreamEvent]:
        """Finish: dispatch a last event that was not followed by a blank line."""
        frames: list[_Frame] = []
        last = self._lines.flush()
        if last is not None and not self._done:
            frame = self._line(last.decode("utf-8", errors="replace"))
            if frame is not None:
                frames.append(frame)
        if not self._done:
            frame = self._frame()
            if frame is not None:
                frames.append(frame)
        return _decode_frames(frames, self._max_depth)

    def _line(self, line: str) -> _Frame | None:
        if not line:
            return self._frame()
        if line.startswith(":"):
            return None  # comment / keep-alive
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data_size += len(value) + 1
            if self._data_size > self._max_event:
                self._data, self._data_size, self._event = [], 0, None
                raise event_too_large("an event", self._max_event)
            self._data.append(value)
        elif name == "event":
            self._event = value.strip()
        return None  # id:, retry: and unknown fields are ignored

    def _frame(self) -> _Frame | None:
        """The event the blank line ends, not decoded yet: (event name, data), or :data:`_DONE`."""
        name, data_lines = self._event, self._data
        self._event, self._data, self._data_size = None, [], 0
        if name is None and not data_lines:
            return None
        payload = data_lines[0] if len(data_lines) == 1 else "\n".join(data_lines)
        if name == "done" or ("[DONE]" in payload and payload.strip() == "[DONE]"):
            self._done = True
            return _DONE
        return name, payload


_Frame = tuple[str | None, str]
_DONE: _Frame = ("done", "")
"""The end of the stream (``[DONE]`` or ``event: done``); compared by identity."""


def _decode_frames(frames: list[_Frame], max_depth: int | None) -> list[StreamEvent]:
    """The events of ``frames``, in order. The JSON objects among them are parsed in one call
    of the parser when there are several (``jsonsafe.whole_objects``: the events of one read
    repeat the same keys), else each on its own."""
    if not frames:
        return []
    objects: list[dict[str, Any]] | None = None
    if len(frames) > 1:
        payloads = [frame[1] for frame in frames if frame is not _DONE]
        if len(payloads) > 1 and all(payload[:1] == "{" for payload in payloads):
            objects = jsonsafe.whole_objects(payloads, max_depth)
    if objects is None:
        return [
            StreamEvent("done", {}) if frame is _DONE else _decode(*frame, max_depth)
            for frame in frames
        ]
    events: list[StreamEvent] = []
    parsed = iter(objects)
    for frame in frames:
        if frame is _DONE:
            events.append(StreamEvent("done", {}))
        else:
            events.append(_typed(frame[0], next(parsed), frame[1]))
    return events


def _decode(name: str | None, payload: str, max_depth: int | None = None) -> StreamEvent:
    data: Any = jsonsafe.whole_object(payload, max_depth) if payload[:1] == "{" else None
    if data is None:
        try:
            data = jsonsafe.loads(payload, max_depth=max_depth) if not _blank(payload) else {}
        except jsonsafe.JSONTooDeepError as exc:
            return StreamEvent(
                INVALID_EVENT, {"event": name, "raw": payload[:2000], "reason": str(exc)}
            )
        except ValueError:
            return StreamEvent(INVALID_EVENT, {"event": name, "raw": payload[:2000]})
    return _typed(name, data, payload)


def _typed(name: str | None, data: Any, payload: str) -> StreamEvent:
    """The event of a frame named ``name`` whose ``payload`` parsed as ``data``."""
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


def _blank(payload: str) -> bool:
    """``not payload.strip()``, without copying the payload."""
    return not payload or payload.isspace()


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


def iter_sse_events(
    chunks: Iterable[bytes], *, max_event: int = DEFAULT_LIMITS.max_event_bytes
) -> Iterator[StreamEvent]:
    """Events from an iterable of byte chunks (stops after the end marker)."""
    decoder = SSEDecoder(max_event=max_event)
    for chunk in chunks:
        yield from decoder.feed(chunk)
        if decoder.done:
            return
    yield from decoder.flush()


async def aiter_sse_events(
    chunks: AsyncIterable[bytes], *, max_event: int = DEFAULT_LIMITS.max_event_bytes
) -> AsyncIterator[StreamEvent]:
    """Events from an async iterable of byte chunks (stops after the end marker)."""
    decoder = SSEDecoder(max_event=max_event)
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
        if decoder.done:
            return
    for event in decoder.flush():
        yield event
