"""``--json`` and ``--jsonl`` output.

``JsonRenderer`` prints one ``forge.answer/v1`` document when the answer ends. ``JsonlRenderer``
prints one line per event as it happens -- ``{"type": ..., "payload": {...}}`` -- and ends with an
``answer`` line whose payload is that document. Strings keep their original text; the JSON is
escaped so that printing it raw cannot drive a terminal (``sanitize.json_dumps_safe``).
"""

from __future__ import annotations

import time
from typing import Any, TextIO

from forge_cli.protocol.citations import Citation, CitationNumbering, collect_citations
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.guards import is_message, is_reasoning
from forge_cli.protocol.items import FunctionCallOutput, Message, OutputItem
from forge_cli.protocol.loop_events import LoopEvent, Notice, event_payload
from forge_cli.protocol.response import Response
from forge_cli.protocol.text import TextView
from forge_cli.redact import redact
from forge_cli.render._changes import ItemChanges
from forge_cli.render.context import RenderContext, item_key
from forge_cli.render.document import answer_document, item_document
from forge_cli.render.glyphs import UNICODE
from forge_cli.render.settle import settled
from forge_cli.render.timing import Clock, ItemClock
from forge_cli.sanitize import json_dumps_safe, sanitize_inline

__all__ = ["JsonRenderer", "JsonlRenderer"]


class JsonRenderer:
    """Collects snapshots; prints one JSON document at the end."""

    def __init__(
        self, stdout: TextIO, *, clock: Clock = time.monotonic, stderr: TextIO | None = None
    ) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.clock = ItemClock(clock)
        self._stop_following = self.clock.follow_prompts()  # an approval wait is not timed
        self._last: Response | None = None
        self._citations: list[Citation] = []
        self._finished = False
        self._changes = ItemChanges()

    @property
    def citations(self) -> list[Citation]:
        """The numbered sources of the last snapshot."""
        if self._finished or self._last is None:
            return list(self._citations)
        return collect_citations(self._last)

    def on_snapshot(self, response: Response) -> None:
        """Remember the snapshot and time its items."""
        self._last = response
        if not self._changes.only_messages(response.output):
            _observe(self.clock, response, final=False)
        else:  # only messages changed: the others were timed as they are
            _observe_messages(self.clock, response.output, self._changes.changed)
        self._changes.remember(response.output)

    def on_event(self, event: LoopEvent) -> None:
        """Agent-loop events are not part of the single document. Info notices (what a tool
        printed) are shown on stderr, sanitised, so they never break the document on stdout."""
        if not isinstance(event, Notice) or self.stderr is None:
            return
        if event.level == "info" and not self._finished:
            self.stderr.write(sanitize_inline(event.message) + "\n")
            self.stderr.flush()

    def tick(self) -> bool:
        """Nothing to redraw: JSON is written when the answer ends (JSONL per event)."""
        return False

    def next_tick_in(self) -> float | None:
        """Never needs a tick (see :meth:`tick`)."""
        return None

    def document(
        self, response: Response, *, interrupted: bool = False,
        error: BaseException | str | None = None, status: str | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """The ``forge.answer/v1`` document of ``response``."""
        self._citations = collect_citations(response)
        return answer_document(response, citations=self._citations, clock=self.clock,
                               interrupted=interrupted, error=error,
                               status=status)  # fmt: skip

    def finish(
        self,
        response: Response | None = None,
        *,
        interrupted: bool = False,
        error: BaseException | str | None = None,
        status: str | None = None,
    ) -> None:
        """Print the document."""
        if self._finished:
            return
        final = response if response is not None else (self._last or Response())
        self._stop_following()
        _observe(self.clock, final, final=True)
        self.clock.close(self.clock.now())
        doc = self.document(final, interrupted=interrupted, error=error, status=status)
        self._finished = True
        self.stdout.write(redact(json_dumps_safe(doc, indent=2)) + "\n")
        self.stdout.flush()


def _observe(clock: ItemClock, response: Response, *, final: bool) -> list[bool]:
    now = clock.now()
    ctx = RenderContext.for_response(response, glyphs=UNICODE, clock=clock,
                                     numbering=CitationNumbering(), final=True,
                                     show_reasoning=False)  # fmt: skip
    count = len(response.output)
    flags = []
    for index, item in enumerate(response.output):
        done = final or settled(item, index, count, ctx)
        clock.observe(item_key(item, index), done, now)
        flags.append(done)
    return flags


def _observe_messages(clock: ItemClock, output: list[OutputItem], changed: list[int]) -> None:
    """:func:`_observe` for the changed messages only (see ``ItemChanges.only_messages``)."""
    now = clock.now()
    count = len(output)
    for index in changed:
        item = output[index]
        clock.observe(item_key(item, index), _message_settled(item, index, count), now)


def _message_settled(item: OutputItem, index: int, count: int) -> bool:
    # settled() ignores the context for a message: an empty one serves.
    return settled(item, index, count, _NO_CONTEXT)


_NO_CONTEXT = RenderContext(UNICODE, ItemClock(lambda: 0.0), CitationNumbering())


class JsonlRenderer(JsonRenderer):
    """One JSON line per event; the last line is the ``answer`` document.

    Event types: ``response.started`` {id, model}; ``item.started`` {index, type, id, status};
    ``item.status`` {index, id, status}; ``text.delta`` / ``reasoning.delta``
    {index, id, delta}; ``text.replaced`` {index, id, text} when a server rewrote text;
    ``item.done`` {index, item}; ``agent.<type>`` for agent-loop events (payload = the event's
    fields); ``answer`` (payload = the forge.answer/v1 document).
    """

    def __init__(
        self, stdout: TextIO, *, clock: Clock = time.monotonic, stderr: TextIO | None = None
    ) -> None:
        super().__init__(stdout, clock=clock, stderr=stderr)
        self._started = False
        self._seen: dict[int, tuple[str | None, str | None]] = {}
        self._texts: dict[int, str | TextView] = {}
        """The text emitted last per item: the view it was read from while a message streams."""
        self._done: set[int] = set()
        self._outputs: dict[str, FunctionCallOutput] = {}

    def _emit(self, kind: str, payload: dict[str, Any]) -> None:
        self.stdout.write(redact(json_dumps_safe({"type": kind, "payload": payload})) + "\n")

    def on_snapshot(self, response: Response) -> None:
        """Emit what changed since the previous snapshot."""
        if self._finished:
            return
        self._last = response
        output = response.output
        if self._started and self._changes.only_messages(output):
            self._diff_messages(output, self._changes.changed)
        else:
            self._diff(response, _observe(self.clock, response, final=False))
        self._changes.remember(output)
        self.stdout.flush()

    def on_event(self, event: LoopEvent) -> None:
        """Every agent-loop event becomes an ``agent.<type>`` line."""
        if self._finished:
            return
        self._emit(f"agent.{event.type}", event_payload(event))
        self.stdout.flush()

    def finish(
        self,
        response: Response | None = None,
        *,
        interrupted: bool = False,
        error: BaseException | str | None = None,
        status: str | None = None,
    ) -> None:
        """Emit the remaining changes, then the ``answer`` line."""
        if self._finished:
            return
        final = response if response is not None else (self._last or Response())
        self._stop_following()
        self._diff(final, _observe(self.clock, final, final=True))
        self.clock.close(self.clock.now())
        doc = self.document(final, interrupted=interrupted, error=error, status=status)
        self._finished = True
        self._emit("answer", doc)
        self.stdout.flush()

    def _diff(self, response: Response, done_flags: list[bool]) -> None:
        if not self._started:
            self._started = True
            self._emit("response.started", {"id": response.id, "model": response.model})
        outputs = self._outputs = RenderContext.for_response(
            response, glyphs=UNICODE, clock=self.clock, numbering=CitationNumbering(),
            final=True, show_reasoning=False,
        ).outputs  # fmt: skip
        for index, item in enumerate(response.output):
            self._diff_item(index, item, done_flags[index], outputs)

    def _diff_messages(self, output: list[OutputItem], changed: list[int]) -> None:
        """:meth:`_diff` when only the messages at ``changed`` differ from the last snapshot."""
        now = self.clock.now()
        count = len(output)
        for index in changed:
            item = output[index]
            done = _message_settled(item, index, count)
            self.clock.observe(item_key(item, index), done, now)
            self._diff_item(index, item, done, self._outputs)  # the other items are unchanged

    def _diff_item(
        self, index: int, item: OutputItem, done: bool, outputs: dict[str, FunctionCallOutput]
    ) -> None:
        ident = getattr(item, "id", None)
        status = getattr(item, "status", None)
        previous = self._seen.get(index)
        if previous is None:
            self._emit("item.started", {"index": index, "type": str(item.type),
                                        "id": ident, "status": status})  # fmt: skip
        elif previous[1] != status:
            self._emit("item.status", {"index": index, "id": ident, "status": status})
        self._seen[index] = (ident, status)
        if is_message(item):
            view = _streaming_view(item)
            if view is None or not self._view_delta(index, ident, view):
                self._text_delta(index, ident, item.text, "text")
                if view is not None:
                    self._texts[index] = view  # reads the same text; the next delta reads less
        elif is_reasoning(item):
            self._text_delta(index, ident, item.text, "reasoning")
        if done and index not in self._done:
            self._done.add(index)
            doc = item_document(item, index, outputs, self.clock)
            self._emit("item.done", {"index": index, "item": doc})

    def _view_delta(self, index: int, ident: str | None, view: TextView) -> bool:
        """The text delta of a message streaming into one part, read from its lazy view:
        only the new text is joined. ``False`` when the view does not continue the text
        emitted last (then the whole text is compared)."""
        old = self._texts.get(index, "")
        if not isinstance(old, TextView) or not view.extends(old):
            return False
        if view.length > old.length:
            self._emit("text.delta", {"index": index, "id": ident,
                                      "delta": view.text_from(old.length)})  # fmt: skip
        self._texts[index] = view
        return True

    def _text_delta(self, index: int, ident: str | None, text: str, kind: str) -> None:
        previous = self._texts.get(index, "")
        old = previous.text if isinstance(previous, TextView) else previous
        if text == old:
            return
        tail = old[-32:]
        if len(text) >= len(old) and text[len(old) - len(tail) : len(old)] == tail:
            self._emit(f"{kind}.delta", {"index": index, "id": ident, "delta": text[len(old) :]})
        else:
            self._emit("text.replaced", {"index": index, "id": ident, "text": text})
        self._texts[index] = text


def _streaming_view(message: Message) -> TextView | None:
    """The lazy view of a message that streams into one text part, else ``None``."""
    content = message.content
    if len(content) == 1:
        part = content[0]
        if isinstance(part, OutputText):
            return part.text_view
    return None
