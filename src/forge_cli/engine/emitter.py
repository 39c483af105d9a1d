"""The producer side of the standard Responses stream: numbered events and the response they build.

One :class:`ResponseEmitter` per response. It stamps every event with ``type`` and a monotonic
``sequence_number``, remembers each output item in its final form, and renders the full Response
object for the lifecycle events. :class:`MessageWriter` and :class:`ToolCallRun` produce the
event sequences of one message and of one hosted tool call, in the order the openai SDK's strict
``responses.stream()`` accumulator expects (added before deltas, every added item finished).
"""

from __future__ import annotations

import time
from typing import Any

from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request
from forge_cli.protocol.traceable import append_trace, trace_line, unit_progress

__all__ = ["MessageWriter", "ResponseEmitter", "ToolCallRun"]


class ResponseEmitter:
    """Numbers events and keeps the state of one response."""

    def __init__(self, response_id: str, model: str, request: Request) -> None:
        self.response_id = response_id
        self.model = model
        self.request = request
        self.created_at = int(time.time())
        self._sequence = 0
        self._items: list[dict[str, Any]] = []
        self._ids = 0

    def new_id(self, prefix: str) -> str:
        """An item id unique within this response."""
        self._ids += 1
        return f"{prefix}_{self.response_id.removeprefix('resp_')}_{self._ids}"

    def event(self, kind: str, **fields: Any) -> StreamEvent:
        """One event with ``type`` and the next ``sequence_number``."""
        data = {"type": kind, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return StreamEvent(kind, data)

    @property
    def output(self) -> list[dict[str, Any]]:
        """The output items so far (each in its latest form)."""
        return list(self._items)

    def add_item(self, item: dict[str, Any]) -> tuple[int, StreamEvent]:
        """Append an item; returns its output index and the ``output_item.added`` event."""
        index = len(self._items)
        self._items.append(dict(item))
        return index, self.event("response.output_item.added", output_index=index, item=item)

    def finish_item(self, index: int, item: dict[str, Any]) -> StreamEvent:
        """Record the final form of an item; the ``output_item.done`` event."""
        self._items[index] = dict(item)
        return self.event("response.output_item.done", output_index=index, item=item)

    def response(
        self,
        status: str,
        *,
        usage: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The full Response object in its current state."""
        request = self.request
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "error": error,
            "incomplete_details": None,
            "instructions": request.instructions,
            "model": self.model,
            "output": [] if status in ("queued", "in_progress") else self.output,
            "parallel_tool_calls": request.parallel_tool_calls is not False,
            "previous_response_id": request.previous_response_id,
            "temperature": request.temperature,
            "tool_choice": request.tool_choice or "auto",
            "tools": [tool.to_wire() for tool in request.tools],
            "metadata": dict(request.metadata or {}),
            "usage": usage,
        }

    def lifecycle(self, kind: str, status: str, **extra: Any) -> StreamEvent:
        """A lifecycle event (``response.created`` ...) carrying the full response."""
        return self.event(kind, response=self.response(status, **extra))


class MessageWriter:
    """Streams one assistant message with a single ``output_text`` part.

    ``annotation`` indexes are character positions in the text written so far, so call
    :meth:`annotate` right after the delta that ends the cited passage.
    """

    def __init__(self, emitter: ResponseEmitter) -> None:
        self._emitter = emitter
        self.item_id = emitter.new_id("msg")
        self.index = -1
        self._parts: list[str] = []
        self._length = 0
        self.annotations: list[dict[str, Any]] = []

    @property
    def position(self) -> int:
        """Characters written so far (the index a citation placed now would get)."""
        return self._length

    @property
    def text(self) -> str:
        """All text written so far."""
        return "".join(self._parts)

    def _where(self) -> dict[str, Any]:
        return {"item_id": self.item_id, "output_index": self.index, "content_index": 0}

    def start(self) -> list[StreamEvent]:
        """``output_item.added`` and ``content_part.added``."""
        item = {
            "id": self.item_id,
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        self.index, added = self._emitter.add_item(item)
        part = {"type": "output_text", "text": "", "annotations": []}
        return [
            added,
            self._emitter.event("response.content_part.added", **self._where(), part=part),
        ]

    def write(self, delta: str) -> StreamEvent | None:
        """One ``output_text.delta`` (``None`` for an empty string)."""
        if not delta:
            return None
        self._parts.append(delta)
        self._length += len(delta)
        return self._emitter.event(
            "response.output_text.delta", **self._where(), delta=delta, logprobs=[]
        )

    def annotate(self, annotation: dict[str, Any]) -> StreamEvent:
        """One ``output_text.annotation.added``."""
        number = len(self.annotations)
        self.annotations.append(annotation)
        return self._emitter.event(
            "response.output_text.annotation.added",
            **self._where(),
            annotation_index=number,
            annotation=annotation,
        )

    def finish(self) -> list[StreamEvent]:
        """``output_text.done``, ``content_part.done`` and ``output_item.done``."""
        text = self.text
        part = {"type": "output_text", "text": text, "annotations": list(self.annotations)}
        item = {
            "id": self.item_id,
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [part],
        }
        emitter = self._emitter
        return [
            emitter.event("response.output_text.done", **self._where(), text=text, logprobs=[]),
            emitter.event("response.content_part.done", **self._where(), part=part),
            emitter.finish_item(self.index, item),
        ]


class ToolCallRun:
    """Streams one hosted tool call: added, status events, progress with trace, done.

    Status events are ``response.<type>.<status>`` (``response.file_search_call.searching``);
    progress is ``response.<type>.progress`` with ``progress`` (0..1) and ``trace`` (the new trace
    line, appended by the client to ``execution_trace``). ``output_item.done`` carries the final
    item, including the whole ``progress``/``execution_trace`` for traceable tools.
    """

    def __init__(self, emitter: ResponseEmitter, item: dict[str, Any], *, traceable: bool) -> None:
        self._emitter = emitter
        self.item = dict(item)
        self.kind = str(item["type"])
        self.traceable = traceable
        self.index = -1
        if traceable:
            self.item.setdefault("progress", 0.0)
            self.item.setdefault("execution_trace", "")

    @property
    def item_id(self) -> str:
        """The id of the call item."""
        return str(self.item["id"])

    def _where(self) -> dict[str, Any]:
        return {"item_id": self.item_id, "output_index": self.index}

    def start(self) -> list[StreamEvent]:
        """``output_item.added`` and ``response.<type>.in_progress``."""
        self.item["status"] = "in_progress"
        self.index, added = self._emitter.add_item(self.item)
        return [added, self.status("in_progress")]

    def status(self, status: str) -> StreamEvent:
        """A ``response.<type>.<status>`` event; the item takes that status."""
        self.item["status"] = status
        return self._emitter.event(f"response.{self.kind}.{status}", **self._where())

    def progress(self, progress: float, message: str, step: str | None = None) -> StreamEvent:
        """A ``response.<type>.progress`` event with the new trace line."""
        progress = unit_progress(progress)
        line = trace_line(message, step)
        self.item["execution_trace"] = append_trace(self.item.get("execution_trace"), line)
        self.item["progress"] = progress
        return self._emitter.event(
            f"response.{self.kind}.progress", **self._where(), progress=progress, trace=line
        )

    def finish(self, **fields: Any) -> list[StreamEvent]:
        """``response.<type>.completed`` and ``output_item.done`` with ``fields`` merged in."""
        self.item.update(fields)
        events = [self.status("completed")]
        if self.traceable:
            self.item["progress"] = 1.0
        return [*events, self._emitter.finish_item(self.index, dict(self.item))]

    def fail(self, message: str, **fields: Any) -> list[StreamEvent]:
        """``output_item.done`` with status ``failed`` and an ``error`` message.

        There is no standard ``.failed`` status event for hosted tools, so the final item says it.
        """
        self.item.update(fields)
        self.item["status"] = "failed"
        self.item["error"] = {"message": message}
        return [self._emitter.finish_item(self.index, dict(self.item))]
