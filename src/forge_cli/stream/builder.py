"""Fold any Responses-style event stream into a sequence of immutable Response snapshots.

Accepts both the OpenAI delta style (lifecycle, output items, content parts, text deltas,
annotations, refusals, function-call argument deltas, reasoning, tool progress, errors) and the
Knowledge Forge style, where an event's data is a complete Response. It never raises on server
data: events out of order, for unknown items, of unknown types, or with broken JSON are counted in
:attr:`SnapshotBuilder.diagnostics`.

Snapshots are copy-on-write: each event replaces only the item it touches (and that item's touched
part), so a snapshot handed out is never mutated afterwards. Text deltas go to append-only
:class:`~forge_cli.protocol.text.TextBuffer` objects, so a delta costs amortized O(1).

Snapshots are lazy (docs/adr/0015-lazy-snapshots.md): :meth:`SnapshotBuilder.apply` only changes
the builder's own state, and the Response is built when :attr:`SnapshotBuilder.snapshot` is read,
then cached until the next change. A text delta for a part that is already streaming takes a fast
path: it is appended to the part's buffer and the part is marked pending; pending parts are put
into their message (one copy of the part, the message and the response) when a snapshot is read
or before any other event is applied, so every other handler sees the items as they stand.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from forge_cli.protocol._base import evolve
from forge_cli.protocol.content import (
    OutputText,
    ReasoningText,
    Refusal,
    SummaryText,
)
from forge_cli.protocol.events import EVENT_ALIASES, LIFECYCLE_EVENTS, StreamEvent
from forge_cli.protocol.guards import is_function_call, is_message, is_reasoning, is_traceable
from forge_cli.protocol.items import (
    CodeInterpreterCall,
    FunctionCall,
    Message,
    OutputItem,
    Reasoning,
)
from forge_cli.protocol.parse import parse_annotation, parse_item, parse_response
from forge_cli.protocol.response import Response, ResponseError
from forge_cli.protocol.text import TextBuffer
from forge_cli.protocol.traceable import append_trace, unit_progress
from forge_cli.stream._merge import merge_item, set_part
from forge_cli.stream.diagnostics import StreamDiagnostics
from forge_cli.stream.endings import NO_TERMINAL_EVENT, NO_VALID_EVENT
from forge_cli.stream.sse import INVALID_EVENT

__all__ = ["SnapshotBuilder"]

Handler = Callable[["SnapshotBuilder", dict[str, Any]], bool]
_TextTarget = tuple[int, Message, int, OutputText]

_log = logging.getLogger(__name__)

_TERMINAL_STATUS = {
    "response.completed": "completed",
    "response.failed": "failed",
    "response.incomplete": "incomplete",
}
_PROGRESS_SUFFIXES = ("progress",)


class SnapshotBuilder:
    """Feed events one at a time; get the Response as it stands after each."""

    def __init__(self) -> None:
        self._base = Response(status="in_progress")
        self._items: list[OutputItem] = []
        self._by_index: dict[int, int] = {}
        self._by_id: dict[str, int] = {}
        self._buffers: dict[tuple[int, str, int], TextBuffer] = {}
        self._seen: dict[int, tuple[str, int]] = {}
        self._pending: dict[tuple[int, str, int], None] = {}
        """Streaming text parts whose buffer grew since their message was last copied."""
        self._snapshot = self._base
        self._dirty = False
        self._added = False
        self.terminal: str | None = None
        """``completed``, ``failed``, ``incomplete`` or ``error`` once the stream said so."""
        self.error: ResponseError | None = None
        """The error the server reported, if any."""
        self.diagnostics = StreamDiagnostics()
        self.valid_events = 0
        """Events that were neither invalid frames nor the end marker."""

    # -- public -----------------------------------------------------------------------------

    @property
    def snapshot(self) -> Response:
        """The latest snapshot (built on first read after a change, then cached)."""
        if self._dirty:
            self._sync()
            self._snapshot = evolve(self._base, output=list(self._items))
            self._dirty = False
        return self._snapshot

    @property
    def ended(self) -> bool:
        """Whether a terminal event arrived."""
        return self.terminal is not None

    def feed(self, event: StreamEvent) -> Response:
        """Apply one event and return the snapshot after it (the same object if nothing changed)."""
        self.apply(event)
        return self.snapshot

    def apply(self, event: StreamEvent) -> bool:
        """Apply one event; whether it changed the snapshot (read :attr:`snapshot` to get it).

        Applying many events and reading the snapshot once costs one copy of what changed, not
        one per event: the fold reads it once per batch of events that arrived together.
        """
        self.diagnostics.events += 1
        kind = EVENT_ALIASES.get(event.type, event.type)
        data = event.data
        if kind == _TEXT_DELTA and self.terminal is None:
            self.valid_events += 1
            if self._is_duplicate(kind, data):
                return False
            if self._append_text(data):
                self._dirty = True
                return True
            return self._dispatch(kind, data)
        if kind not in (INVALID_EVENT, "done"):
            self.valid_events += 1
        if self._is_duplicate(kind, data):
            return False
        if self.terminal is not None and kind not in ("done", "error"):
            self.diagnostics.record("late", kind)
        return self._dispatch(kind, data)

    def _dispatch(self, kind: str, data: dict[str, Any]) -> bool:
        self._sync()
        self._added = False
        try:
            changed = self._apply(kind, data)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            # Defensive: a payload shape we did not foresee must never break the stream.
            self.diagnostics.record("malformed", f"{kind}: {type(exc).__name__}: {exc}")
            changed = False
        # An item synthesised for an orphan event is a change even when the event itself then
        # changed nothing: whenever the snapshot is read, it shows the item.
        changed = changed or self._added
        if changed:
            self._dirty = True
        return changed

    def _append_text(self, data: dict[str, Any]) -> bool:
        """The fast path of a text delta: append to the part's open buffer, copy nothing.

        Taken only when the generic path would do exactly this (the item is located, is a
        message, and the addressed part already streams into a buffer); else ``False``.
        """
        position = self._locate(data)
        if position is None:
            return False
        key = (position, "content", _int(data.get("content_index"), 0))
        buffer = self._buffers.get(key)
        if buffer is None or not is_message(self._items[position]):
            return False
        buffer.append(str(data.get("delta") or ""))
        self._pending[key] = None
        return True

    def appends_text(self, data: dict[str, Any]) -> bool:
        """Whether a text delta addressed like ``data`` now takes the fast path: appended to a
        streaming part's buffer, nothing else looked at or recorded (the fold applies a run of
        such deltas as one)."""
        if self.terminal is not None:
            return False
        position = self._locate(data)
        if position is None:
            return False
        key = (position, "content", _int(data.get("content_index"), 0))
        return key in self._buffers and is_message(self._items[position])

    def take_sequence(self, data: dict[str, Any]) -> bool:
        """Record a text delta's sequence number as :meth:`apply` would, for a delta the fold
        applies as part of a run; ``False``, recording nothing, when it repeats one already seen
        (the fold then applies it on its own, and it is reported as a duplicate)."""
        seq = data.get("sequence_number")
        if not isinstance(seq, int) or isinstance(seq, bool):
            return True
        fingerprint = (_TEXT_DELTA, _fingerprint(data))
        if self._seen.get(seq) == fingerprint:
            return False
        self._seen[seq] = fingerprint
        return True

    def _sync(self) -> None:
        """Put the text of pending parts into their messages (copy-on-write, once per read)."""
        if not self._pending:
            return
        for key in self._pending:
            position, _, index = key
            buffer = self._buffers.get(key)
            item = self._items[position]
            if buffer is None or not is_message(item):
                continue
            part = item.content[index] if index < len(item.content) else None
            part = part if isinstance(part, OutputText) else OutputText()
            self._items[position] = set_part(item, index, part.with_view(buffer.view()))
        self._pending.clear()

    def finish(self) -> Response:
        """Close the stream. Without a terminal event the response is marked ``incomplete``."""
        if self.diagnostics.problems:
            _log.debug("stream: %s", self.diagnostics.summary())
        if self.terminal is None and self.snapshot.status in (None, "in_progress", "queued"):
            self.diagnostics.record("truncated", "the stream ended without a terminal event")
            self._base = self._base.model_copy(update={"status": "incomplete"})
            self._snapshot = self._base.model_copy(update={"output": list(self._items)})
        return self.snapshot

    def end_problem(self) -> str | None:
        """Why the finished stream cannot be trusted as a whole answer, or ``None``.

        A stream that carried no valid event, or that ended without its terminal event (the
        connection closed cleanly mid-answer), is a failure: the caller raises it so the exit
        code says so, while the partial answer stays shown and saved.
        """
        if self.valid_events == 0:
            return NO_VALID_EVENT
        if self.terminal is None:
            return NO_TERMINAL_EVENT
        return None

    # -- dispatch ---------------------------------------------------------------------------

    def _apply(self, kind: str, data: dict[str, Any]) -> bool:
        if kind in LIFECYCLE_EVENTS or kind == "response.snapshot":
            return self._lifecycle(kind, data)
        if _looks_like_response(data):
            return self._replace_all(data, kind)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            return handler(self, data)
        if kind.startswith("response.") and "_call" in kind:
            return self._tool_progress(kind, data)
        if kind == INVALID_EVENT:
            self.diagnostics.record("invalid", str(data.get("raw", ""))[:120])
        elif kind != "done":
            self.diagnostics.record("unknown_event", kind)
        return False

    def _is_duplicate(self, kind: str, data: dict[str, Any]) -> bool:
        seq = data.get("sequence_number")
        if not isinstance(seq, int) or isinstance(seq, bool):
            return False
        fingerprint = (kind, _fingerprint(data))
        if self._seen.get(seq) == fingerprint:
            self.diagnostics.record("duplicate", f"{kind} #{seq}")
            return True
        self._seen[seq] = fingerprint
        return False

    # -- lifecycle --------------------------------------------------------------------------

    def _lifecycle(self, kind: str, data: dict[str, Any]) -> bool:
        raw = data.get("response")
        if not isinstance(raw, dict):
            raw = data if _looks_like_response(data) else {}
        incoming = parse_response(raw)
        status = _TERMINAL_STATUS.get(kind)
        if status is not None:
            self.terminal = status
        fields = {
            name: getattr(incoming, name)
            for name in incoming.model_fields_set | set(incoming.model_extra or {})
            if name not in ("output", "object") and getattr(incoming, name, None) is not None
        }
        if status is not None:
            fields["status"] = status
        if incoming.error is not None:
            self.error = incoming.error
        elif status == "failed" and self.error is None:
            self.error = ResponseError(message="the response failed")
        self._base = self._base.model_copy(update=fields)
        if incoming.output:
            self._adopt_output(incoming.output)
        if status is not None:
            self._items = [_settled(item) for item in self._items]
        return True

    def _replace_all(self, data: dict[str, Any], kind: str) -> bool:
        """Knowledge Forge style: the event's data is the whole Response."""
        return self._lifecycle(kind if kind in LIFECYCLE_EVENTS else "response.snapshot", data)

    def _adopt_output(self, output: list[OutputItem]) -> None:
        """Take a server's full output list, keeping what we streamed that it left out.

        An item is matched by id, else by position and kind when the item streamed there has no
        id or an id the server's list no longer has: OpenRouter changes a reasoning item's id
        between ``output_item.done`` and ``response.completed``. Such an item keeps the id it
        streamed with, so it stays one item for the renderers (printed once).
        """
        old_by_id = {item.id: item for item in self._items if getattr(item, "id", None) is not None}
        new_ids = {item.id for item in output if item.id}
        merged: list[OutputItem] = []
        for position, item in enumerate(output):
            previous = old_by_id.get(getattr(item, "id", None)) if item.id else None
            if previous is None and position < len(self._items):
                candidate = self._items[position]
                if candidate.type == item.type and candidate.id not in new_ids:
                    previous = candidate
                    if candidate.id and item.id:
                        self.diagnostics.record("renamed", f"{item.type} {candidate.id}")
                        item = item.model_copy(update={"id": candidate.id})
            merged.append(merge_item(previous, item) if previous is not None else item)
        self._items = merged
        self._by_index = {i: i for i in range(len(merged))}
        self._by_id = {item.id: i for i, item in enumerate(merged) if item.id}
        self._buffers.clear()

    # -- items ------------------------------------------------------------------------------

    def _locate(self, data: dict[str, Any]) -> int | None:
        index = data.get("output_index")
        if isinstance(index, int) and index in self._by_index:
            return self._by_index[index]
        item_id = data.get("item_id")
        if isinstance(item_id, str) and item_id in self._by_id:
            return self._by_id[item_id]
        return None

    def _add(self, item: OutputItem, output_index: Any) -> int:
        self._added = True
        position = len(self._items)
        self._items.append(item)
        if isinstance(output_index, int):
            self._by_index.setdefault(output_index, position)
        if item.id:
            self._by_id[item.id] = position
        return position

    def _replace(self, position: int, item: OutputItem) -> None:
        self._items[position] = item
        if item.id:
            self._by_id[item.id] = position

    def _require(self, data: dict[str, Any], kind: str, make: Callable[[], OutputItem]) -> int:
        """The position of the event's item, synthesising it when the server never added it."""
        position = self._locate(data)
        if position is None:
            self.diagnostics.record("orphan", f"{kind} for an item that was never added")
            item = make()
            item_id = data.get("item_id")
            if isinstance(item_id, str) and item_id:
                item = item.model_copy(update={"id": item_id})
            position = self._add(item, data.get("output_index"))
        return position

    def _item_added(self, data: dict[str, Any]) -> bool:
        raw = data.get("item")
        if not isinstance(raw, dict):
            self.diagnostics.record("malformed", "output_item.added without an item")
            return False
        item = parse_item(raw)
        if item.type in _ARRIVE_DONE:
            item = _settled(item)
        position = self._locate(data)
        if position is not None:
            self.diagnostics.record("duplicate", f"output_item.added for index {position}")
            self._replace(position, merge_item(self._items[position], item))
            return True
        self._add(item, data.get("output_index"))
        return True

    def _item_done(self, data: dict[str, Any]) -> bool:
        raw = data.get("item")
        if not isinstance(raw, dict):
            self.diagnostics.record("malformed", "output_item.done without an item")
            return False
        item = parse_item(raw)
        position = self._locate({**data, "item_id": item.id or data.get("item_id")})
        if position is None:
            self._add(_settled(item), data.get("output_index"))
            return True
        previous = self._items[position]
        if previous.id and item.id and previous.id != item.id:
            self.diagnostics.record("renamed", f"{item.type} {previous.id}")
            item = item.model_copy(update={"id": previous.id})  # one item for the renderers
        self._replace(position, _settled(merge_item(previous, item)))
        self._drop_buffers(position)
        return True

    def _drop_buffers(self, position: int) -> None:
        for key in [key for key in self._buffers if key[0] == position]:
            del self._buffers[key]

    # -- message content --------------------------------------------------------------------

    def _message_at(self, data: dict[str, Any], kind: str) -> tuple[int, Message] | None:
        position = self._require(data, kind, lambda: Message(status="in_progress"))
        item = self._items[position]
        if not is_message(item):
            self.diagnostics.record("malformed", f"{kind} for a {item.type} item")
            return None
        return position, item

    def _part_added(self, data: dict[str, Any]) -> bool:
        raw = data.get("part")
        if not isinstance(raw, dict):
            return False
        position = self._locate(data)
        if position is not None and isinstance(self._items[position], Reasoning):
            return self._reasoning_part(position, data, raw)
        located = self._message_at(data, "content_part")
        if located is None:
            return False
        position, message = located
        index = _int(data.get("content_index"), len(message.content))
        part = Message.model_validate({"content": [raw]}).content[0]
        self._replace(position, set_part(message, index, part))
        self._buffers.pop((position, "content", index), None)
        return True

    def _reasoning_part(self, position: int, data: dict[str, Any], raw: dict[str, Any]) -> bool:
        item = self._items[position]
        assert is_reasoning(item)
        index = _int(data.get("content_index"), len(item.content or []))
        content = list(item.content or [])
        part = ReasoningText(text=str(raw.get("text", "")))
        content[index : index + 1] = [part]
        self._replace(position, item.model_copy(update={"content": content}))
        return True

    def _text_part(self, data: dict[str, Any], kind: str) -> _TextTarget | None:
        """The message, content index and output_text part an event addresses."""
        located = self._message_at(data, kind)
        if located is None:
            return None
        position, message = located
        index = _int(data.get("content_index"), 0)
        part = message.content[index] if index < len(message.content) else None
        return position, message, index, part if isinstance(part, OutputText) else OutputText()

    def _text_delta(self, data: dict[str, Any]) -> bool:
        target = self._text_part(data, "output_text.delta")
        if target is None:
            return False
        position, message, index, part = target
        buffer = self._buffer((position, "content", index), lambda: part.text)
        buffer.append(str(data.get("delta") or ""))
        self._replace(position, set_part(message, index, part.with_view(buffer.view())))
        return True

    def _text_done(self, data: dict[str, Any]) -> bool:
        target = self._text_part(data, "output_text.done")
        if target is None:
            return False
        position, message, index, part = target
        text = data.get("text")
        final = part.with_text(text if isinstance(text, str) else part.text)
        self._buffers.pop((position, "content", index), None)
        self._replace(position, set_part(message, index, final))
        return True

    def _annotation(self, data: dict[str, Any]) -> bool:
        annotation = parse_annotation(data.get("annotation"))
        if annotation is None:
            self.diagnostics.record("malformed", "annotation.added without an annotation")
            return False
        target = self._text_part(data, "annotation.added")
        if target is None:
            return False
        position, message, index, part = target
        updated = part.model_copy(update={"annotations": [*part.annotations, annotation]})
        self._replace(position, set_part(message, index, updated))
        return True

    def _refusal(self, data: dict[str, Any], *, done: bool) -> bool:
        located = self._message_at(data, "refusal")
        if located is None:
            return False
        position, message = located
        index = _int(data.get("content_index"), 0)
        part = message.content[index] if index < len(message.content) else None
        current = part.refusal if isinstance(part, Refusal) else ""
        if done:
            final = data.get("refusal")
            text = final if isinstance(final, str) else current
        else:
            text = current + str(data.get("delta") or "")
        self._replace(position, set_part(message, index, Refusal(refusal=text)))
        return True

    # -- function calls and code ------------------------------------------------------------

    def _arguments(self, data: dict[str, Any], *, done: bool) -> bool:
        position = self._require(data, "function_call_arguments", lambda: FunctionCall())
        item = self._items[position]
        if not is_function_call(item):
            self.diagnostics.record("malformed", f"function arguments for a {item.type} item")
            return False
        if done:
            final = data.get("arguments")
            arguments = final if isinstance(final, str) else item.arguments
            self._buffers.pop((position, "arguments", 0), None)
        else:
            buffer = self._buffer((position, "arguments", 0), lambda: item.arguments)
            buffer.append(str(data.get("delta") or ""))
            arguments = buffer.view().text
        self._replace(position, item.model_copy(update={"arguments": arguments}))
        return True

    def _code(self, data: dict[str, Any], *, done: bool) -> bool:
        position = self._require(
            data, "code_interpreter_call_code", lambda: CodeInterpreterCall(status="in_progress")
        )
        item = self._items[position]
        if not isinstance(item, CodeInterpreterCall):
            return False
        if done:
            final = data.get("code")
            code = final if isinstance(final, str) else item.code
        else:
            buffer = self._buffer((position, "code", 0), lambda: item.code or "")
            buffer.append(str(data.get("delta") or ""))
            code = buffer.view().text
        self._replace(position, item.model_copy(update={"code": code}))
        return True

    # -- reasoning --------------------------------------------------------------------------

    def _reasoning_at(self, data: dict[str, Any], kind: str) -> tuple[int, Reasoning] | None:
        position = self._require(data, kind, lambda: Reasoning(status="in_progress"))
        item = self._items[position]
        if not is_reasoning(item):
            self.diagnostics.record("malformed", f"{kind} for a {item.type} item")
            return None
        return position, item

    def _summary(self, data: dict[str, Any], *, mode: str) -> bool:
        located = self._reasoning_at(data, f"reasoning_summary_{mode}")
        if located is None:
            return False
        position, item = located
        index = _int(data.get("summary_index"), len(item.summary))
        summary = list(item.summary)
        while len(summary) <= index:
            summary.append(SummaryText(text=""))
        key = (position, "summary", index)
        if mode == "delta":
            current = summary[index]
            buffer = self._buffer(key, lambda: current.text)
            buffer.append(str(data.get("delta") or ""))
            summary[index] = summary[index].with_view(buffer.view())
        else:
            raw = data.get("part") if mode == "part" else data
            text = raw.get("text") if isinstance(raw, dict) else None
            if isinstance(text, str) and (text or mode != "part"):
                summary[index] = summary[index].with_text(text)
                self._buffers.pop(key, None)
        self._replace(position, item.model_copy(update={"summary": summary}))
        return True

    def _reasoning_text(self, data: dict[str, Any], *, done: bool) -> bool:
        located = self._reasoning_at(data, "reasoning_text")
        if located is None:
            return False
        position, item = located
        index = _int(data.get("content_index"), 0)
        content = list(item.content or [])
        while len(content) <= index:
            content.append(ReasoningText(text=""))
        key = (position, "reasoning", index)
        if done:
            text = data.get("text")
            if isinstance(text, str):
                content[index] = content[index].with_text(text)
            self._buffers.pop(key, None)
        else:
            current = content[index]
            buffer = self._buffer(key, lambda: current.text)
            buffer.append(str(data.get("delta") or ""))
            content[index] = content[index].with_view(buffer.view())
        self._replace(position, item.model_copy(update={"content": content}))
        return True

    # -- tool progress ----------------------------------------------------------------------

    def _tool_progress(self, kind: str, data: dict[str, Any]) -> bool:
        """``response.<tool>_call.<status>`` (OpenAI and Knowledge Forge), and ``.progress``."""
        family, _, status = kind.removeprefix("response.").rpartition(".")
        if not family.endswith("_call") or not status:
            self.diagnostics.record("unknown_event", kind)
            return False
        position = self._require(
            data, kind, lambda: parse_item({"type": family, "status": "in_progress"})
        )
        item = self._items[position]
        update: dict[str, Any] = {}
        if status not in _PROGRESS_SUFFIXES:
            update["status"] = status
        if is_traceable(item):
            progress = data.get("progress")
            if isinstance(progress, int | float) and not isinstance(progress, bool):
                update["progress"] = unit_progress(progress)
            trace = data.get("execution_trace")
            if isinstance(trace, str):
                update["execution_trace"] = trace
            line = data.get("trace")
            if isinstance(line, str) and line:
                update["execution_trace"] = append_trace(item.execution_trace, line)
        if status == "completed" and is_traceable(item):
            update.setdefault("progress", 1.0)
        if not update:
            return False
        self._replace(position, item.model_copy(update=update))
        return True

    # -- errors -----------------------------------------------------------------------------

    def _error(self, data: dict[str, Any]) -> bool:
        nested = data.get("error")
        source = nested if isinstance(nested, dict) else data
        message = source.get("message")
        code = source.get("code")
        self.error = ResponseError(
            message=message if isinstance(message, str) and message else "the server failed",
            code=code if isinstance(code, str) else None,
        )
        self.terminal = "error"
        self._base = self._base.model_copy(update={"status": "failed", "error": self.error})
        return True

    # -- helpers ----------------------------------------------------------------------------

    def _buffer(self, key: tuple[int, str, int], initial: Callable[[], str]) -> TextBuffer:
        buffer = self._buffers.get(key)
        if buffer is None:
            buffer = self._buffers[key] = TextBuffer(initial())
        return buffer


def _fingerprint(data: dict[str, Any]) -> int:
    """A cheap hash of what tells two events with one sequence number apart."""
    parts = (
        data.get("item_id"),
        data.get("output_index"),
        data.get("content_index"),
        data.get("delta"),
        len(data),
    )
    try:
        return hash(parts)  # the common case: JSON scalars hash as they are
    except TypeError:  # a list or an object where a scalar belongs
        return hash(tuple(value if _hashable(value) else repr(value)[:256] for value in parts))


def _hashable(value: object) -> bool:
    return isinstance(value, str | int | float | None)


_TEXT_DELTA = "response.output_text.delta"

_ARRIVE_DONE = frozenset({"compaction"})
"""Status-less kinds that are whole when added: nothing runs, so they are never in progress."""


def _settled(item: OutputItem) -> OutputItem:
    """A finished item that carries no ``status`` (reasoning, mcp_list_tools, compaction: the
    Responses API defines none for them) is ``completed``; other statuses are left as sent."""
    if item.status is not None:
        return item
    return item.model_copy(update={"status": "completed"})


def _looks_like_response(data: dict[str, Any]) -> bool:
    if data.get("object") == "response":
        return True
    return isinstance(data.get("output"), list) and "id" in data and "delta" not in data


def _int(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10_000:
        return value
    return default


_HANDLERS: dict[str, Handler] = {
    "response.output_item.added": SnapshotBuilder._item_added,
    "response.output_item.done": SnapshotBuilder._item_done,
    "response.content_part.added": SnapshotBuilder._part_added,
    "response.content_part.done": SnapshotBuilder._part_added,
    "response.output_text.delta": SnapshotBuilder._text_delta,
    "response.output_text.done": SnapshotBuilder._text_done,
    "response.output_text.annotation.added": SnapshotBuilder._annotation,
    "response.refusal.delta": lambda b, d: b._refusal(d, done=False),
    "response.refusal.done": lambda b, d: b._refusal(d, done=True),
    "response.function_call_arguments.delta": lambda b, d: b._arguments(d, done=False),
    "response.function_call_arguments.done": lambda b, d: b._arguments(d, done=True),
    "response.code_interpreter_call_code.delta": lambda b, d: b._code(d, done=False),
    "response.code_interpreter_call_code.done": lambda b, d: b._code(d, done=True),
    "response.reasoning_summary_part.added": lambda b, d: b._summary(d, mode="part"),
    "response.reasoning_summary_part.done": lambda b, d: b._summary(d, mode="part"),
    "response.reasoning_summary_text.delta": lambda b, d: b._summary(d, mode="delta"),
    "response.reasoning_summary_text.done": lambda b, d: b._summary(d, mode="done"),
    "response.reasoning_text.delta": lambda b, d: b._reasoning_text(d, done=False),
    "response.reasoning_text.done": lambda b, d: b._reasoning_text(d, done=True),
    "error": SnapshotBuilder._error,
}
