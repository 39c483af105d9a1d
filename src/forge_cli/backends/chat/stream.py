"""Turn Chat Completions chunks into standard Responses stream events.

The SnapshotBuilder then folds a Chat stream exactly like a Responses stream. Tool-call merging
survives what real servers send (protocol.md §5.3): ``id``/``name`` repeated in every fragment
(set once, first non-empty wins), a whole call in one chunk, several calls in one chunk, a missing
``index`` (matched by id, else the position in the chunk), duplicate entries for one index
(arguments concatenated), a whole call repeated (replaced, not doubled), and ``finish_reason:
"stop"`` with calls present (the calls are emitted regardless; the loop runs them).

Beyond text and tool calls (issue 13, docs/servers.md): ``delta.refusal`` becomes a refusal
content part, ``delta.annotations`` (``url_citation``, OpenRouter web search) become citations on
the text, ``<think>…</think>`` opening the content becomes reasoning (unless turned off), and an
error chunk ends the response as ``failed`` with every open item closed.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from forge_cli import jsonsafe
from forge_cli.backends.chat.think import ThinkSplitter
from forge_cli.protocol.events import StreamEvent
from forge_cli.stream.held import TEXT_DELTA, HeldText

__all__ = ["ChatStreamTranslator"]


@dataclass
class _Call:
    output_index: int
    item_id: str
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.arguments)

    def item(self, status: str) -> dict[str, Any]:
        return {
            "type": "function_call",
            "id": self.item_id,
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.text,
            "status": status,
        }


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


class ChatStreamTranslator:
    """Feed raw chunk dicts; get the Responses events each one implies."""

    def __init__(self, model: str, *, split_think: bool = True) -> None:
        self.model = model
        self._think = ThinkSplitter() if split_think else None
        self.response_id = _new_id("resp")
        self.created_at = time.time()
        self.started = False
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self._next_index = 0
        self._message_index: int | None = None
        self._message_id = _new_id("msg")
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._annotations: list[dict[str, Any]] = []
        self._parts: list[str] = []  # content part kinds of the message, in order
        self._text_index: int | None = None  # the output_text part's index, once it is open
        self._reasoning_index: int | None = None
        self._reasoning_id = _new_id("rs")
        self._reasoning: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._order: list[tuple[str, int]] = []
        self._held = HeldText()
        """Text for the open output_text part not yet sent as a delta (``feed(hold=True)``);
        its fields are those of every delta of that part, set when it opens."""

    # -- public -----------------------------------------------------------------------------

    def start(self) -> list[StreamEvent]:
        """``response.created`` (once)."""
        if self.started:
            return []
        self.started = True
        return [_event("response.created", response=self._response("in_progress", []))]

    def feed(self, chunk: dict[str, Any], *, hold: bool = False) -> list[StreamEvent]:
        """The events implied by one chunk.

        With ``hold``, the text of a chunk that carries only text for the part already
        streaming is kept back instead of becoming a delta of its own: :meth:`release` gives
        the kept text as one delta, and any other event (from a later chunk, :meth:`finish` or
        :meth:`fail`) comes after it. The chunks one network read carried are folded into one
        snapshot anyway (``stream.fold_batches`` joins their deltas), so holding changes no
        snapshot; it saves building an event per token.
        """
        if hold and self.hold_texts([chunk], 0) == 1:
            return []
        events = self.start() if not self.started else []
        if self._held.pieces:
            events.extend(self.release())
        self._note(chunk)
        choices = chunk.get("choices")
        if not choices or not isinstance(choices, list):
            return events
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta, dict):
                self._delta(delta, events)
            reason = choice.get("finish_reason")
            if isinstance(reason, str):
                self.finish_reason = reason
        return events

    def release(self) -> list[StreamEvent]:
        """The text :meth:`feed` held back, as one delta (nothing when none is held)."""
        event = self._held.release()
        return [event] if event is not None else []

    def hold_texts(self, chunks: Sequence[dict[str, Any] | None], start: int) -> int:
        """Hold back the text of ``chunks[start:]`` as :meth:`feed` with ``hold`` does, up to the
        first chunk that carries anything but text for the part already streaming; its index
        (``len(chunks)`` when all were held).

        Such a chunk has one choice (index 0, no finish reason) whose delta is ``content`` and at
        most ``role``, and no ``error``; its ``model`` and ``usage`` are noted. ``None`` (the end
        of a stream) stops it too. One loop for the chunks of a network read, which are nearly
        all such chunks: no event per token, and no call per chunk.
        """
        if self._text_index is None or not (self._think is None or self._think.passthrough):
            return start
        held = self._held.pieces
        text = self._text
        model, usage = self.model, self.usage
        index = start
        count = len(chunks)
        while index < count:
            chunk = chunks[index]
            if chunk is None or chunk.get("error"):
                break
            choices = chunk.get("choices")
            if type(choices) is not list or len(choices) != 1:
                break
            choice = choices[0]
            if type(choice) is not dict or choice.get("finish_reason") is not None:
                break
            if choice.get("index", 0) not in (0, None):
                break
            delta = choice.get("delta")
            if type(delta) is not dict:
                break
            content = delta.get("content")
            if type(content) is not str:
                break
            if len(delta) != 1 and (len(delta) != 2 or "role" not in delta):
                break
            if content:
                text.append(content)
                held.append(content)
            noted = chunk.get("model")  # as _note notes it
            if noted and isinstance(noted, str):
                model = noted
            noted = chunk.get("usage")
            if isinstance(noted, dict):
                usage = noted
            index += 1
        self.model, self.usage = model, usage
        return index

    def _note(self, chunk: dict[str, Any]) -> None:
        """The model and usage a chunk reports, if any."""
        model = chunk.get("model")
        if model and isinstance(model, str):
            self.model = model
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = usage

    def finish(self) -> list[StreamEvent]:
        """Close every open item and emit the terminal lifecycle event."""
        events, output = self._close_all()
        status = "completed"
        details: dict[str, Any] | None = None
        if self.finish_reason == "length":
            status, details = "incomplete", {"reason": "max_output_tokens"}
        elif self.finish_reason == "content_filter":
            status, details = "incomplete", {"reason": "content_filter"}
        response = self._response(status, output)
        if details:
            response["incomplete_details"] = details
        kind = "response.completed" if status == "completed" else "response.incomplete"
        events.append(_event(kind, response=response))
        return events

    def fail(self, message: str, code: str | None) -> list[StreamEvent]:
        """An error chunk: close what was streamed and end the response as ``failed``."""
        events, output = self._close_all()
        response = self._response("failed", output)
        response["error"] = {"message": message, "code": code}
        events.append(_event("response.failed", response=response))
        return events

    def _close_all(self) -> tuple[list[StreamEvent], list[dict[str, Any]]]:
        events = self.start()
        events.extend(self.release())
        if self._think is not None:
            for piece, text in self._think.finish():
                if piece == "reasoning":
                    events.extend(self._reasoning_delta(text))
                else:
                    self._text_delta(text, events)
        output: list[dict[str, Any]] = []
        for kind, index in self._order:
            item, done = self._close(kind, index)
            events.extend(done)
            output.append(item)
        return events, output

    # -- deltas -----------------------------------------------------------------------------

    def _delta(self, delta: dict[str, Any], events: list[StreamEvent]) -> None:
        content = delta.get("content")
        if isinstance(content, str) and (
            len(delta) == 1 or (len(delta) == 2 and "role" in delta)
        ):  # the usual chunk: text only, so the order of the fields below does not matter
            if content:
                self._content(content, events)
            return
        thinking = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(thinking, str) and thinking:
            events.extend(self._reasoning_delta(thinking))
        if isinstance(content, str) and content:
            self._content(content, events)
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            events.extend(self._refusal_delta(refusal))
        for key in ("annotations", "file_citations"):  # the second: forge serve's own
            annotations = delta.get(key)
            if isinstance(annotations, list):
                for raw in annotations:
                    annotation = _annotation(raw)
                    if annotation is not None:
                        events.extend(self._annotation(annotation))
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for position, fragment in enumerate(calls):
                if isinstance(fragment, dict):
                    events.extend(self._call_fragment(position, fragment))

    def _content(self, content: str, events: list[StreamEvent]) -> None:
        think = self._think
        if think is None or think.passthrough:
            self._text_delta(content, events)
            return
        for kind, text in think.feed(content):
            if kind == "reasoning":
                events.extend(self._reasoning_delta(text))
            else:
                self._text_delta(text, events)

    def _reasoning_delta(self, text: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if self._reasoning_index is None:
            self._reasoning_index = self._claim("reasoning")
            item = {"type": "reasoning", "id": self._reasoning_id, "summary": [], "content": []}
            events.append(self._added(self._reasoning_index, {**item, "status": "in_progress"}))
        self._reasoning.append(text)
        events.append(
            _event(
                "response.reasoning_text.delta",
                item_id=self._reasoning_id,
                output_index=self._reasoning_index,
                content_index=0,
                delta=text,
            )
        )
        return events

    def _part(self, kind: str) -> tuple[int, list[StreamEvent]]:
        """The message's content index for a part of ``kind``, opening message and part."""
        events: list[StreamEvent] = []
        if self._message_index is None:
            self._message_index = self._claim("message")
            item = {
                "type": "message",
                "id": self._message_id,
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            }
            events.append(self._added(self._message_index, item))
        if kind not in self._parts:
            self._parts.append(kind)
            empty: dict[str, Any] = (
                {"type": "refusal", "refusal": ""}
                if kind == "refusal"
                else {"type": "output_text", "text": "", "annotations": []}
            )
            events.append(
                _event(
                    "response.content_part.added",
                    item_id=self._message_id,
                    output_index=self._message_index,
                    content_index=self._parts.index(kind),
                    part=empty,
                )
            )
        return self._parts.index(kind), events

    def _text_delta(self, text: str, events: list[StreamEvent]) -> None:
        if self._text_index is None:
            index, opened = self._part("output_text")
            events.extend(opened)
            self._text_index = index
            self._held.fields = {
                "type": TEXT_DELTA,
                "item_id": self._message_id,
                "output_index": self._message_index,
                "content_index": index,
                "delta": "",
                "logprobs": [],
            }
        self._text.append(text)
        events.append(self._held.delta(text))

    def _refusal_delta(self, text: str) -> list[StreamEvent]:
        index, events = self._part("refusal")
        self._refusal.append(text)
        events.append(
            _event(
                "response.refusal.delta",
                item_id=self._message_id,
                output_index=self._message_index,
                content_index=index,
                delta=text,
            )
        )
        return events

    def _annotation(self, annotation: dict[str, Any]) -> list[StreamEvent]:
        index, events = self._part("output_text")
        self._annotations.append(annotation)
        events.append(
            _event(
                "response.output_text.annotation.added",
                item_id=self._message_id,
                output_index=self._message_index,
                content_index=index,
                annotation_index=len(self._annotations) - 1,
                annotation=annotation,
            )
        )
        return events

    def _call_fragment(self, position: int, fragment: dict[str, Any]) -> list[StreamEvent]:
        raw_function = fragment.get("function")
        function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
        raw_id, raw_name = fragment.get("id"), function.get("name")
        call_id: str = raw_id if isinstance(raw_id, str) else ""
        name: str = raw_name if isinstance(raw_name, str) else ""
        arguments = function.get("arguments")
        if isinstance(arguments, dict | list):
            arguments = json.dumps(arguments, ensure_ascii=False)
        pieces = arguments if isinstance(arguments, str) else ""
        key = self._key_for(fragment.get("index"), call_id, position)
        events: list[StreamEvent] = []
        call = self._calls.get(key)
        if call is None:
            call = _Call(self._claim("call", key), _new_id("fc"))
            self._calls[key] = call
            call.call_id, call.name = call_id, name
            events.append(self._added(call.output_index, call.item("in_progress")))
        call.call_id = call.call_id or call_id
        call.name = call.name or name
        if pieces:
            if _is_repeat(call.text, pieces):
                return events
            call.arguments.append(pieces)
            events.append(
                _event(
                    "response.function_call_arguments.delta",
                    item_id=call.item_id,
                    output_index=call.output_index,
                    delta=pieces,
                )
            )
        return events

    def _key_for(self, index: Any, call_id: str, position: int) -> int:
        """Which call a fragment belongs to."""
        if isinstance(index, int) and not isinstance(index, bool):
            existing = self._calls.get(index)
            if existing is None or not call_id or not existing.call_id:
                return index
            if existing.call_id == call_id:
                return index
            return self._key_by_id(call_id)
        if call_id:
            return self._key_by_id(call_id)
        return position

    def _key_by_id(self, call_id: str) -> int:
        for key, call in self._calls.items():
            if call.call_id == call_id:
                return key
        return max(self._calls, default=-1) + 1

    # -- items ------------------------------------------------------------------------------

    def _claim(self, kind: str, key: int = 0) -> int:
        index = self._next_index
        self._next_index += 1
        self._order.append((kind, key))
        return index

    def _added(self, output_index: int, item: dict[str, Any]) -> StreamEvent:
        return _event("response.output_item.added", output_index=output_index, item=item)

    def _close(self, kind: str, key: int) -> tuple[dict[str, Any], list[StreamEvent]]:
        if kind == "message":
            return self._close_message()
        if kind == "reasoning":
            text = "".join(self._reasoning)
            item = {
                "type": "reasoning",
                "id": self._reasoning_id,
                "summary": [],
                "content": [{"type": "reasoning_text", "text": text}],
                "status": "completed",
            }
            return item, [self._done(self._reasoning_index or 0, item)]
        call = self._calls[key]
        if not call.call_id:
            call.call_id = _new_id("call")
        if not call.text:
            call.arguments.append("{}")
        item = call.item("completed")
        args_done = _event(
            "response.function_call_arguments.done",
            item_id=call.item_id,
            output_index=call.output_index,
            arguments=call.text,
        )
        return item, [args_done, self._done(call.output_index, item)]

    def _close_message(self) -> tuple[dict[str, Any], list[StreamEvent]]:
        index = self._message_index or 0
        events: list[StreamEvent] = []
        content: list[dict[str, Any]] = []
        for content_index, kind in enumerate(self._parts):
            where = {"item_id": self._message_id, "output_index": index}
            where["content_index"] = content_index
            if kind == "refusal":
                refusal = "".join(self._refusal)
                part: dict[str, Any] = {"type": "refusal", "refusal": refusal}
                events.append(_event("response.refusal.done", **where, refusal=refusal))
            else:
                text = "".join(self._text)
                annotations = list(self._annotations)
                part = {"type": "output_text", "text": text, "annotations": annotations}
                events.append(_event("response.output_text.done", **where, text=text, logprobs=[]))
            events.append(_event("response.content_part.done", **where, part=part))
            content.append(part)
        item = {
            "type": "message",
            "id": self._message_id,
            "role": "assistant",
            "status": "completed",
            "content": content,
        }
        events.append(self._done(index, item))
        return item, events

    def _done(self, output_index: int, item: dict[str, Any]) -> StreamEvent:
        return _event("response.output_item.done", output_index=output_index, item=item)

    def _response(self, status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
        response: dict[str, Any] = {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "model": self.model,
            "output": output,
        }
        if self.usage is not None and status != "in_progress":
            response["usage"] = _usage(self.usage)
        return response


def _annotation(raw: Any) -> dict[str, Any] | None:
    """A Chat annotation (``{"type": "url_citation", "url_citation": {...}}``), Responses-shaped."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind:
        return None
    nested = raw.get(kind)
    fields = nested if isinstance(nested, dict) else {k: v for k, v in raw.items() if k != "type"}
    annotation: dict[str, Any] = {"type": kind, **fields}
    if kind == "url_citation" and "snippet" not in annotation and "content" in annotation:
        content = annotation.pop("content")
        if isinstance(content, str) and content:
            annotation["snippet"] = content
    return annotation


def _is_repeat(accumulated: str, piece: str) -> bool:
    """A server that resends the whole call: the piece alone is the same complete JSON."""
    if not accumulated or piece != accumulated:
        return False
    try:
        jsonsafe.loads(piece)
    except ValueError:
        return False
    return True


def _usage(raw: dict[str, Any]) -> dict[str, Any]:
    prompt = int(raw.get("prompt_tokens") or 0)
    completion = int(raw.get("completion_tokens") or 0)
    usage: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": int(raw.get("total_tokens") or prompt + completion),
    }
    details = raw.get("completion_tokens_details")
    if isinstance(details, dict) and details.get("reasoning_tokens") is not None:
        usage["output_tokens_details"] = {"reasoning_tokens": details["reasoning_tokens"]}
    cached = raw.get("prompt_tokens_details")
    if isinstance(cached, dict) and cached.get("cached_tokens") is not None:
        usage["input_tokens_details"] = {"cached_tokens": cached["cached_tokens"]}
    return usage


def _event(kind: str, **data: Any) -> StreamEvent:
    return StreamEvent(kind, {"type": kind, **data})
