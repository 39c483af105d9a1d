"""The first words of the answer, painted before the renderer exists (ADR-0018).

``forge ask`` sends its request before the renderer, rich, markdown-it and the response models
are imported; they are imported on a background thread while the server works
(:mod:`forge_cli._lazy`). A server that answers at once sends the first token while that thread
still runs, and the renderer cannot be built before it ends. :class:`TextPreview` paints the start
of the first message in the meantime, with nothing but the stream's events, the live key
redactor and a ``write``; the renderer then takes over (:meth:`TextPreview.hand_over`).

Only text that every view shows exactly as it arrived is painted: the start of the first
message, from a letter on, in ASCII letters, digits, single spaces and punctuation that is not
Markdown (so the rich view draws the same cells), stopping at the first anything else (a
newline, a Markdown or citation character, a key prefix held back, another item or event). In
the rich view it stays on the first line; the renderer erases that line in the same write as its
first frame, so the text is drawn over, never twice. In plain mode it is the start of the output
and the renderer goes on after it.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TextIO

from forge_cli.protocol.events import EVENT_ALIASES, StreamEvent

if TYPE_CHECKING:
    from forge_cli.stream.secrets import DeltaRedactor

__all__ = ["PROSE_WIDTH", "TextPreview"]

PROSE_WIDTH = 100
"""The rich view's widest prose line (``render.items.message.PROSE_WIDTH``; not imported here:
that module imports rich)."""

_SAFE = re.compile(r"[A-Za-z](?:[A-Za-z0-9.,;:?!'\"()/%$@-]| (?! ))*")
"""Text every view shows as written: a letter first (no list, heading or quote marker), then
letters, digits, punctuation that is not Markdown and single spaces (rich keeps a double space
as it is, but it is not worth the doubt)."""

_MAX_BATCHES = 256
"""At most this many batches are painted (remembered, to show a batch offered twice once)."""

_QUIET = frozenset({"response.created", "response.in_progress", "response.queued"})
_DELTA = "response.output_text.delta"


class TextPreview:
    """Paints the safe start of the first message while the renderer cannot be built yet.

    Call it with each batch of stream events that arrives before the fold starts; it returns
    whether it showed all of the batch (the caller may then read the next one) or stopped for
    good. :meth:`hand_over` is called once the renderer exists, before it draws.
    """

    def __init__(self, stream: TextIO, *, mode: Literal["rich", "plain"]) -> None:
        self._stream = stream
        self._mode = mode
        self._limit = _line_room(stream) if mode == "rich" else None
        self._redactor: DeltaRedactor | None = None
        self._offered: list[Sequence[StreamEvent]] = []
        """The batches offered so far (they are few: the preview stops at the first newline)."""
        self._message = False
        self._part = False
        self._text = ""
        self._first_delta = -1
        """Where the stream's first delta ended in ``_text`` (-1: none yet)."""
        self._open = True
        self.shown = ""
        """What was painted (a prefix of the first message's text; empty once handed over)."""

    def __call__(self, batch: Sequence[StreamEvent]) -> bool:
        if any(batch is seen for seen in self._offered):
            return self._open  # offered again (read early, then by the turn runner): shown once
        self._offered.append(batch)
        if len(self._offered) > _MAX_BATCHES:
            self._open = False  # the renderer will be there soon enough
        if not self._open:
            return False
        if self._redactor is None:
            from forge_cli.stream.secrets import DeltaRedactor

            self._redactor = DeltaRedactor()
        before = self._text
        for event in batch:
            if not self._take(self._redactor(event)):
                # The fold draws a batch's events together (the stream's first delta on its
                # own): text of this batch may only show with what stopped the preview (an
                # annotation inside it, say), so only the first delta is painted from it.
                self._open = False
                self._text = before or self._text[: max(self._first_delta, 0)]
                break
        self._paint()
        return self._open

    def hand_over(self, renderer: Any) -> None:
        """The renderer exists: stop painting and let it take over what was painted."""
        self._open = False
        shown, self.shown = self.shown, ""  # handed over once
        if not shown:
            return
        if self._mode == "plain":
            renderer.continue_after(len(shown))
        else:
            renderer.adopt_line(len(shown))  # its first frame erases the line as it draws

    # --- internals --------------------------------------------------------------------------

    def _take(self, event: StreamEvent) -> bool:
        """Note ``event``; whether the preview can go on after it."""
        kind = EVENT_ALIASES.get(event.type, event.type)
        data = event.data
        if kind in _QUIET:
            response = data.get("response")
            return not (isinstance(response, dict) and response.get("output"))
        if kind == "response.output_item.added":
            item = data.get("item")
            if self._message or not isinstance(item, dict) or item.get("type") != "message":
                return False
            self._message = data.get("output_index", 0) == 0 and not item.get("content")
            return self._message
        if kind == "response.content_part.added":
            part = data.get("part")
            if not self._message or self._part or not isinstance(part, dict) or not _first(data):
                return False
            self._part = part.get("type") == "output_text" and not part.get("text")
            return self._part and not part.get("annotations")
        if kind == _DELTA and self._part and _first(data):
            delta = data.get("delta")
            if not isinstance(delta, str):
                return False
            self._text += delta
            if self._first_delta < 0:
                self._first_delta = len(self._text)
            return True
        return False

    def _paint(self) -> None:
        match = _SAFE.match(self._text)
        safe = match.group() if match is not None else ""
        if len(safe) < len(self._text):
            self._open = False  # the next character is not safe: nothing after it is shown
        bearer = safe.lower().find("bearer")
        if bearer >= 0:  # a credential may follow (redact's pattern): stop before the word
            safe = safe[:bearer]
            self._open = False
        if self._limit is not None and len(safe) > self._limit:
            safe = safe[: self._limit]  # the rich view's first line only: the erase covers it
            self._open = False
        if len(safe) > len(self.shown):
            self._stream.write(safe[len(self.shown) :])
            self._stream.flush()
            self.shown = safe


def _first(data: dict[str, Any]) -> bool:
    """The event is about the first output item's first content part."""
    return bool(data.get("output_index", 0) == 0 and data.get("content_index", 0) == 0)


def _line_room(stream: TextIO) -> int:
    """Characters the preview may take on the rich view's first line: less than the console's
    width (as rich reads it: ``COLUMNS`` first, then the terminal) and the prose width, with
    room for an echoed ``^C``."""
    widths = [PROSE_WIDTH]
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        widths.append(int(columns))
    with contextlib.suppress(AttributeError, ValueError, OSError):
        widths.append(os.get_terminal_size(stream.fileno()).columns)
    return max(0, min(widths) - 3)
