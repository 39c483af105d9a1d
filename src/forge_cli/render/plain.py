"""Plain mode: answer text on stdout as it arrives, tool status on stderr, no ANSI codes.

Used when stdout is not a terminal, with ``--plain`` or ``TERM=dumb``. Only the new
suffix of the answer is written for each snapshot (citation markers normalised to ``[n]``; a
marker still streaming in is held back until it is complete). Tool-call lines are the rich
renderer's lines drawn by a colourless, non-terminal console, so they carry no escape codes.

The footer, status notes and notices are plain strings (the wording the rich view styles,
``render/summary.py`` and ``render/events.py``); a line that such a console would print unchanged
is written as it is, so an answer that is only text imports no rich module. rich (the console and
the item renderers) loads on first need: a tool-call line, or a line the console would wrap or
change (:func:`as_printed`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TextIO

from forge_cli.protocol.annotations import Annotation
from forge_cli.protocol.blocks import Block
from forge_cli.protocol.citations import (
    Citation,
    CitationNumbering,
    MessageCitations,
    positioned_annotations,
    source_of,
)
from forge_cli.protocol.citing import PARTIAL_MARKER_RE
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.guards import is_message
from forge_cli.protocol.items import FunctionCall, Message, Reasoning
from forge_cli.protocol.loop_events import LoopEvent
from forge_cli.protocol.response import Response
from forge_cli.redact import redact
from forge_cli.render._changes import ItemChanges
from forge_cli.render.context import RenderContext, item_key
from forge_cli.render.events import notice_line
from forge_cli.render.glyphs import ASCII, UNICODE
from forge_cli.render.settle import settled
from forge_cli.render.summary import footer_text, source_label, status_note_parts
from forge_cli.render.timing import Clock, ItemClock, format_elapsed
from forge_cli.sanitize import sanitize

if TYPE_CHECKING:
    from rich.console import Console

    from forge_cli.render.items import ItemRegistry

__all__ = ["PlainRenderer", "as_printed"]

# Characters a colourless rich console prints as they are, one cell wide each: rich's own
# single-cell ranges (it measures these without its width tables) and the glyphs of our lines,
# narrow in every Unicode version rich knows (tests/render/test_plain_lines.py checks both).
_NARROW = frozenset(
    chr(code)
    for start, end in ((0x20, 0x7E), (0xA0, 0xAC), (0xAE, 0x2FF), (0x370, 0x482), (0x2500, 0x25FC))
    for code in range(start, end + 1)
) | frozenset("↑↓✓✗⊘…→∴")


def as_printed(text: str, width: int) -> str | None:
    """``text`` as a colourless rich console ``width`` cells wide prints it (markup, emoji and
    highlighting off): each line as it is and a newline, when every line fits and holds only
    characters it prints unchanged. ``None`` when the console would change something (wrap a
    long line, expand a tab, drop a control code, measure a wide character): print with it."""
    for line in text.split("\n"):
        if len(line) > width or not _NARROW.issuperset(line):
            return None
    return text + "\n"


def _arguments_streaming(item: object) -> bool:
    """A call whose arguments are still a piece of JSON: announced, that piece would stay."""
    return isinstance(item, FunctionCall) and item.parsed_arguments() is None


def _finished(item: object) -> bool:
    return bool(getattr(item, "is_done", False))


class _Progress:
    __slots__ = ("cites", "done", "printed")

    def __init__(self) -> None:
        self.printed = 0
        self.cites = MessageCitations()
        self.done = False


class PlainRenderer:
    """Streams plain text. Create one per answer."""

    def __init__(
        self,
        stdout: TextIO,
        stderr: TextIO,
        *,
        ascii: bool = False,
        show_reasoning: bool = False,
        show_errors: bool = True,
        clock: Clock = time.monotonic,
        width: int = 100,
        registry: ItemRegistry | None = None,
    ) -> None:
        self.stdout = stdout
        self.glyphs = ASCII if ascii else UNICODE
        self.show_reasoning = show_reasoning
        self.show_errors = show_errors
        self.clock = ItemClock(clock)
        self._stop_following = self.clock.follow_prompts()  # an approval wait is not timed
        self._registry = registry  # default: the built-in one, loaded on first need
        self._stderr = stderr
        self._width = width
        self._console: Console | None = None
        self._numbering = CitationNumbering()
        self._messages: dict[int, _Progress] = {}
        self._announced: set[str] = set()
        self._settled: set[str] = set()
        self._wrote_text = False
        self._at_line_start = True
        self._last: Response | None = None
        self._changes = ItemChanges()  # unchanged items need no second look
        self._ctx: RenderContext | None = None
        self._citations: list[Citation] | None = None
        self._finished = False

    @property
    def registry(self) -> ItemRegistry:
        """The item renderers for tool-call lines (the built-in ones unless given)."""
        if self._registry is None:
            from forge_cli.render.items import ITEM_RENDERERS

            self._registry = ITEM_RENDERERS
        return self._registry

    @property
    def citations(self) -> list[Citation]:
        """The numbered sources (complete after :meth:`finish`)."""
        if self._citations is not None:
            return list(self._citations)
        return self._numbering.citations()

    def on_snapshot(self, response: Response) -> None:
        """Write new answer text to stdout and tool status changes to stderr."""
        if not self._finished:
            self._last = response
            self._update(response, final=False)

    def on_event(self, event: LoopEvent) -> None:
        """Agent-loop news becomes one line on stderr."""
        line = notice_line(event, self.glyphs)
        if line is not None and not self._finished:
            self._note(line[0])

    def tick(self) -> bool:
        """Nothing to redraw: plain text is written as each snapshot arrives."""
        return False

    def next_tick_in(self) -> float | None:
        """Never needs a tick (see :meth:`tick`)."""
        return None

    def finish(
        self,
        response: Response | None = None,
        *,
        interrupted: bool = False,
        error: BaseException | str | None = None,
        status: str | None = None,
    ) -> None:
        """Flush the rest of the text; the Sources list on stdout; notes on stderr."""
        if self._finished:
            return
        self._finished = True
        self._stop_following()
        final = response if response is not None else self._last
        self.clock.close(self.clock.now())
        if final is not None:
            self._update(final, final=True)
        if not self._at_line_start:
            self._write("\n")
        self._citations = self._numbering.finalize(final) if final is not None else []
        if self._citations:
            lines = [
                f"[{c.n}] {source_label(c, ascii_only=self.glyphs.ascii_only)}"
                for c in self._citations
            ]
            self._write(("\n" if self._wrote_text else "") + "Sources:\n" + "\n".join(lines) + "\n")
        for note, _style in status_note_parts(
            final, self.glyphs, interrupted=interrupted, error=error, show_errors=self.show_errors
        ):
            self._note(note)
        footer = footer_text(final, self.clock.total(), self.glyphs, waited=self.clock.waited())
        if footer is not None:
            self._note(footer)
        self.stdout.flush()

    # --- internals --------------------------------------------------------------------------

    def _update(self, response: Response, *, final: bool) -> None:
        now = self.clock.now()
        output = response.output
        count = len(output)
        ctx = self._ctx
        if not final and ctx is not None and self._changes.only_messages(output):
            # The rest is as the last pass left it; a message's settling ignores the pairings
            # the context holds, so the last pass's context serves.
            for index in self._changes.changed:
                item = output[index]
                assert is_message(item)
                done = settled(item, index, count, ctx)
                self.clock.observe(item_key(item, index), done, now)
                self._text(index, item, done)
            self._changes.remember(output)
            self.stdout.flush()
            return
        self._changes.remember(output)
        ctx = self._ctx = RenderContext.for_response(
            response, glyphs=self.glyphs, clock=self.clock, numbering=self._numbering,
            final=True, show_reasoning=self.show_reasoning,
        )  # fmt: skip
        for index, item in enumerate(output):
            key = item_key(item, index)
            done = final or settled(item, index, count, ctx)
            self.clock.observe(key, done, now)
            if is_message(item):
                self._text(index, item, done)
            elif done and key not in self._settled:
                self._settled.add(key)
                self._status(item, key, ctx)
            elif (
                not done
                and key not in self._announced
                and not _finished(item)
                and not _arguments_streaming(item)
            ):
                # A call that arrives already finished is printed once, when it settles (its
                # final fields may still come); announcing it too printed it twice.
                self._announced.add(key)
                if isinstance(item, Reasoning):
                    # A live tail has no place in lines that stay (its first words dangled before
                    # the whole text, even hidden reasoning): the head line alone says it started.
                    elapsed = format_elapsed(self.clock.elapsed(key))
                    self._note(f"{self.glyphs.reasoning} Reasoning{self.glyphs.ellipsis} {elapsed}")
                    continue
                ctx.final = False
                self._status(item, key, ctx)
                ctx.final = True
        self.stdout.flush()

    def _status(self, item: object, key: str, ctx: RenderContext) -> None:
        entry = self.registry.lookup(item)
        for renderable in entry.render(item, key, ctx):
            self._err().print(renderable)

    def _err(self) -> Console:
        """The colourless console on stderr that draws tool-call lines (built on first need)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(
                file=self._stderr, width=self._width, color_system=None, force_terminal=False,
                highlight=False, markup=False, emoji=False,
            )  # fmt: skip
        return self._console

    def _note(self, text: str) -> None:
        """One line of ours on stderr, with the bytes the colourless console would write."""
        printed = as_printed(text, self._width)
        if printed is None:
            self._err().print(text, markup=False)
        else:
            self._stderr.write(printed)
            self._stderr.flush()

    def _text(self, index: int, message: Message, done: bool) -> None:
        state = self._messages.setdefault(index, _Progress())
        if state.done:
            return
        # Only the text from what was printed on is read: the part of it before ``base`` is
        # neither joined nor copied again (positions below are relative to ``base``).
        text, base, annotations = _new_text(message, state.printed)
        length = base + len(text)
        end = length
        if not done:
            partial = PARTIAL_MARKER_RE.search(text, max(0, end - base - 12))
            if partial is not None:
                end = base + partial.start()
        # On completion run once more even when all text is out: a citation positioned at the very
        # end of the text arrives after the last delta and still needs its marker.
        if end > state.printed or (done and end == state.printed and state.printed > 0):
            if state.printed == 0 and self._wrote_text:
                self._write("\n" if self._at_line_start else "\n\n")
            own_end = length + 1 if done else end
            if annotations and not state.cites.marker_mode:
                self._number_passed(annotations, state.printed)
            block = Block(state.printed - base, end - base, state.printed - base, own_end - base)
            chunk = state.cites.cite(text, block, annotations, self._numbering)
            self._write(sanitize(redact(chunk)))
            self._wrote_text = True
            state.printed = end
        if done:
            state.done = True
            if message.refusal:
                self._note(f"{self.glyphs.failed} refused: {sanitize(message.refusal)}")

    def _number_passed(
        self, annotations: list[tuple[int | None, Annotation]], printed: int
    ) -> None:
        """Number, in text order, the citations that point into text already printed.

        Their marker can no longer be written (the annotation arrived after its text), but the
        number is still theirs: without this a citation after them would take it, and the
        Sources list would disagree with ``--json``, ``/sources`` and exports (which number by
        position). Positions here are absolute: an annotated message is read whole.
        """
        for _pos, _index, ann in sorted(
            (pos, index, ann)
            for index, (pos, ann) in enumerate(annotations)
            if pos is not None and pos < printed
        ):
            src = source_of(ann)
            if src is not None:
                self._numbering.number(src[0], src[1])

    def _write(self, text: str) -> None:
        if text:
            self.stdout.write(text)
            self._at_line_start = text.endswith("\n")


def _new_text(message: Message, start: int) -> tuple[str, int, list[tuple[int | None, Annotation]]]:
    """The message's text from ``start`` on, that offset, and its positioned annotations.

    A message streaming into one text part without annotations (nearly every answer) is read
    from its lazy view, so only the new text is joined; any other message is read whole.
    """
    content = message.content
    if len(content) == 1:
        part = content[0]
        if isinstance(part, OutputText) and not part.annotations:
            view = part.text_view
            if view is not None:
                return view.text_from(start), start, []
    return message.text, 0, positioned_annotations(message)
