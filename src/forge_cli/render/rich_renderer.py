"""The rich renderer: streams snapshots to a terminal without quadratic cost.

Items are *committed* in output order: an item is printed once to the scrollback as soon as it is
settled and everything before it is. A message is committed block by block while it streams.
The live region (a transient rich ``Live`` with ``auto_refresh=False``) holds only what is still
changing -- the unfinished block, running tool calls, a reasoning tail -- cropped to the terminal
height. All screen writes happen on *ticks*, at most ``max_fps`` per second by the injected
clock. A snapshot that arrives inside the throttle window only marks the screen *dirty* (except
the answer's first content, drawn at once so the first token is not kept waiting); whoever
drives the renderer calls :meth:`RichRenderer.tick` after :meth:`RichRenderer.next_tick_in`
seconds, so the latest text is drawn even when the stream then stalls, and elapsed counters of
running tool calls keep counting. ``finish`` prints what is left, the Sources list and status
notes, so the scrollback ends up equal to :meth:`RichRenderer.render_static` of the final snapshot.
"""

from __future__ import annotations

import time

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.text import Text

from forge_cli.prompting import on_prompt
from forge_cli.protocol.blocks import Block, BlockSplitter
from forge_cli.protocol.citations import (
    Citation,
    CitationNumbering,
    MessageCitations,
    positioned_annotations,
)
from forge_cli.protocol.guards import is_function_call, is_message
from forge_cli.protocol.items import Message
from forge_cli.protocol.loop_events import LoopEvent
from forge_cli.protocol.response import Response
from forge_cli.render.context import RenderContext, item_key
from forge_cli.render.events import notice_for
from forge_cli.render.glyphs import ASCII, UNICODE
from forge_cli.render.items import ITEM_RENDERERS, ItemRegistry, markdown_block, refusal_line
from forge_cli.render.items.message import warm_up_parser
from forge_cli.render.live import LiveView, tail_lines
from forge_cli.render.settle import settled
from forge_cli.render.summary import Layout, footer_line, sources_block, status_notes
from forge_cli.render.timing import Clock, ItemClock

__all__ = ["RichRenderer"]


class _MessageStream:
    """Commit state of the message being streamed into the scrollback."""

    __slots__ = ("cites", "splitter")

    def __init__(self) -> None:
        self.splitter = BlockSplitter()
        self.cites = MessageCitations()

    def commit(self, message: Message, numbering: CitationNumbering, final: bool) -> list[str]:
        text = message.text
        blocks = self.splitter.finish(text) if final else self.splitter.feed(text)
        if not blocks:
            return []
        annotations = positioned_annotations(message)
        return [self.cites.cite(text, block, annotations, numbering) for block in blocks]

    def tail(self, message: Message, numbering: CitationNumbering, keep: int) -> str:
        text = message.text
        start = self.splitter.pending_start
        if start >= len(text):
            return ""
        cut = tail_lines(text, start, keep)
        prefix = ""
        if cut > start:
            first = text[start : text.find("\n", start)]
            prefix = first + "\n" if first.lstrip().startswith(("```", "~~~")) else ""
        cites = MessageCitations()
        cites.marker_mode = self.cites.marker_mode
        block = Block(cut, len(text), cut, len(text) + 1)
        return prefix + cites.cite(text, block, positioned_annotations(message), numbering)


class _Frame:
    """What the live region shows: the view set last.

    rich's ``Live`` hands its region a new renderable on ``refresh`` only, and a print while live
    redraws the region from what it holds. The region holds this frame for its whole life and
    the frame draws whatever view was set last, so one print both commits to the scrollback and
    draws the new region (one screen write per tick instead of two), through ``Live``'s public
    API only.
    """

    __slots__ = ("view",)

    def __init__(self) -> None:
        self.view: RenderableType = Text("")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.view


class RichRenderer:
    """Draws snapshots on a rich console. Create one per answer."""

    def __init__(
        self,
        console: Console,
        *,
        ascii: bool = False,
        show_reasoning: bool = False,
        show_errors: bool = True,
        clock: Clock = time.monotonic,
        max_fps: float = 15.0,
        registry: ItemRegistry = ITEM_RENDERERS,
    ) -> None:
        self.console = console
        self.glyphs = ASCII if ascii else UNICODE
        self.show_reasoning = show_reasoning
        self.show_errors = show_errors
        self.clock = ItemClock(clock)
        self.registry = registry
        self.redraws = 0
        self._interval = 1.0 / max_fps
        self._last_tick: float | None = None
        self._dirty = False
        self._shown_content = False
        """The answer's first content was drawn: it is drawn at once, not when the throttle
        allows (the snapshot before it -- an empty message -- usually just started the window)."""
        self._numbering = CitationNumbering()
        self._layout = Layout()
        self._committed = 0
        self._stream: _MessageStream | None = None
        self._pending: list[RenderableType] = []
        self._live: Live | None = None
        self._frame = _Frame()
        self._last: Response | None = None
        self._citations: list[Citation] | None = None
        self._finished = False
        self._paused = False
        self._stop_listening = on_prompt(self._pause, self._resume)

    # --- the Renderer API -------------------------------------------------------------------

    @property
    def citations(self) -> list[Citation]:
        """The numbered sources (complete after :meth:`finish`)."""
        if self._citations is not None:
            return list(self._citations)
        return self._numbering.citations()

    def on_snapshot(self, response: Response) -> None:
        """Take the next snapshot; commit what settled and redraw if the throttle allows.

        Between redraws a snapshot only notes its items' times: what settled is committed at the
        next redraw (the block splitter gives the same blocks for any chunking), so the text of
        a snapshot that is never drawn is never read.
        """
        if self._finished:
            return
        now = self.clock.now()
        self._last = response
        output = response.output
        count = len(output)
        if count == 1 and is_message(output[0]):
            self.clock.observe(item_key(output[0], 0), output[0].is_done, now)
        else:
            ctx = self._context(response, final=True)
            for index, item in enumerate(output):
                self.clock.observe(item_key(item, index), settled(item, index, count, ctx), now)
        self._dirty = True
        first = not self._shown_content and _has_content(response)
        if (first or self._due(now)) and not self._paused:
            self._shown_content |= first
            self._tick(response, now)

    def tick(self) -> bool:
        """Redraw now if it is needed and the throttle allows; whether the screen was written.

        Needed when a snapshot was not drawn yet (it came inside the throttle window) or an item
        in the live region is still running (its elapsed time changes). Cheap when nothing is
        needed: call it whenever :meth:`next_tick_in` says so.
        """
        if self._finished or self._paused or not self._needs_redraw():
            return False
        now = self.clock.now()
        if not self._due(now):
            return False
        self._tick(self._last, now)
        return True

    def next_tick_in(self) -> float | None:
        """Seconds until :meth:`tick` would redraw, or ``None`` when idle and clean (no timer)."""
        if self._finished or self._paused or not self._needs_redraw():
            return None
        if self._last_tick is None:
            return 0.0
        return max(0.0, self._last_tick + self._interval - self.clock.now())

    def on_event(self, event: LoopEvent) -> None:
        """An agent-loop event: news (blocked, limits, errors, messages) becomes a notice line."""
        if self._finished:
            return
        notice = notice_for(event, self.glyphs)
        if notice is not None:
            self._pending.extend(self._layout.place("status", [notice]))
            if not self._paused:
                self._tick(self._last, self.clock.now())

    def finish(
        self,
        response: Response | None = None,
        *,
        interrupted: bool = False,
        error: BaseException | str | None = None,
        status: str | None = None,
    ) -> None:
        """Print everything left, the Sources list and status notes; stop the live region."""
        if self._finished:
            return
        self._finished = True
        self._stop_listening()
        final = response if response is not None else self._last
        self.clock.close(self.clock.now())
        if final is not None:
            self._advance(final, self._context(final, final=True), final=True)
        self._pending.extend(self._closing(final, self._numbering, interrupted, error))
        if self._live is not None:
            self._frame.view = Text("")
            self._live.stop()
            self._live = None
        self._flush()

    # --- one-shot rendering -----------------------------------------------------------------

    def render_static(
        self,
        response: Response,
        *,
        interrupted: bool = False,
        error: BaseException | str | None = None,
    ) -> list[RenderableType]:
        """The whole final snapshot at once (what streaming must end up equal to)."""
        numbering = CitationNumbering()
        layout = Layout()
        ctx = self._context(response, final=True, numbering=numbering)
        out: list[RenderableType] = []
        for index, item in enumerate(response.output):
            entry = self.registry.lookup(item)
            out.extend(layout.place(entry.kind, entry.render(item, item_key(item, index), ctx)))
        out.extend(self._closing(response, numbering, interrupted, error, layout))
        return out

    # --- internals --------------------------------------------------------------------------

    def _context(
        self, response: Response, *, final: bool, numbering: CitationNumbering | None = None
    ) -> RenderContext:
        return RenderContext.for_response(
            response,
            glyphs=self.glyphs,
            clock=self.clock,
            numbering=numbering if numbering is not None else self._numbering,
            final=final,
            show_reasoning=self.show_reasoning,
        )

    def _advance(self, response: Response, ctx: RenderContext, *, final: bool) -> None:
        """Commit, in order, every item (or message block) that has settled."""
        output = response.output
        while self._committed < len(output):
            index = self._committed
            item = output[index]
            done = final or settled(item, index, len(output), ctx)
            if is_message(item):
                self._stream = self._stream or _MessageStream()
                blocks = self._stream.commit(item, self._numbering, done)
                units: list[RenderableType] = [markdown_block(block) for block in blocks]
                if done and item.refusal:
                    units.append(refusal_line(item.refusal, ctx))
                self._pending.extend(self._layout.place("prose", units))
            elif done:
                entry = self.registry.lookup(item)
                key = item_key(item, index)
                self._pending.extend(self._layout.place(entry.kind, entry.render(item, key, ctx)))
            if not done:
                return
            self._committed += 1
            self._stream = None

    def _closing(
        self,
        response: Response | None,
        numbering: CitationNumbering,
        interrupted: bool,
        error: BaseException | str | None,
        layout: Layout | None = None,
    ) -> list[RenderableType]:
        layout = layout or self._layout
        out: list[RenderableType] = []
        citations = numbering.finalize(response) if response is not None else []
        if layout is self._layout:
            self._citations = citations
        sources = sources_block(citations, self.glyphs)
        if sources is not None:
            out.extend(layout.place("prose", [sources]))
        notes: list[RenderableType] = [
            *status_notes(
                response,
                self.glyphs,
                interrupted=interrupted,
                error=error,
                show_errors=self.show_errors,
            )
        ]
        footer = footer_line(response, self.clock.total(), self.glyphs, waited=self.clock.waited())
        if footer is not None:
            notes.append(footer)
        if notes:
            out.extend(layout.place("prose", [Group(*notes)]))
        return out

    def _live_view(self, response: Response | None) -> LiveView:
        if response is None:
            return LiveView([])
        ctx = self._context(response, final=False, numbering=self._numbering.copy())
        layout = Layout()
        layout.last = self._layout.last
        keep = max(4, self.console.height)
        parts: list[RenderableType] = []
        for index in range(self._committed, len(response.output)):
            item = response.output[index]
            if is_message(item) and index == self._committed and self._stream is not None:
                tail = self._stream.tail(item, ctx.numbering, keep)
                units: list[RenderableType] = [markdown_block(tail)] if tail.strip() else []
                parts.extend(layout.place("prose", units))
                continue
            entry = self.registry.lookup(item)
            rendered = entry.render(item, item_key(item, index), ctx)
            parts.extend(layout.place(entry.kind, rendered))
        return LiveView(parts)

    def _due(self, now: float) -> bool:
        return self._last_tick is None or now - self._last_tick >= self._interval

    def _needs_redraw(self) -> bool:
        """Something on screen is stale: an undrawn snapshot, or a running item's elapsed time.

        Running: in the live region, still timed, and not finished -- a function call runs until
        its output arrives; a finished tool call waiting to settle does not keep counting.
        """
        if self._dirty:
            return True
        last = self._last
        if last is None:
            return False
        output = last.output
        for index in range(self._committed, len(output)):
            item = output[index]
            if is_message(item) or not self.clock.running(item_key(item, index)):
                continue
            if is_function_call(item) or not getattr(item, "is_done", False):
                return True
        return False

    def _pause(self) -> None:
        """A prompt needs the terminal: clear the live region and draw nothing until resumed."""
        self._paused = True
        self.clock.pause()  # the wait for an answer is not the answer's time
        if self._live is not None:
            self._frame.view = Text("")
            self._live.stop()
            self._live = None

    def _resume(self) -> None:
        """The prompt was answered: the next tick redraws the live region below it."""
        self._paused = False
        self.clock.resume()
        self._dirty = True
        self._last_tick = None

    def _tick(self, response: Response | None, now: float) -> None:
        """One screen update: commit what settled, print it, redraw the live region."""
        if response is not None:
            self._advance(response, self._context(response, final=True), final=False)
        self._last_tick = now
        self._dirty = False
        self.redraws += 1
        if self._live is None:
            self._live = Live(
                self._frame,
                console=self.console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="visible",
            )
            self._live.start()
        self._frame.view = self._live_view(response)
        if self._pending:
            self._flush()
        else:
            self._live.refresh()

    def _flush(self) -> None:
        # At most _PRINT_AT_ONCE blocks per print: rich renders a print whole before writing it,
        # and an answer that streamed faster than the redraws (a fast local server) settles
        # hundreds of blocks at once (a 20k-token answer: +4 MB of peak RSS printed in one go).
        pending, self._pending = self._pending, []
        for start in range(0, len(pending), _PRINT_AT_ONCE):
            self.console.print(Group(*pending[start : start + _PRINT_AT_ONCE]))


_PRINT_AT_ONCE = 64
"""Settled blocks printed per ``console.print`` (bounds what rich holds rendered at once)."""


def _has_content(response: Response) -> bool:
    """Whether the snapshot holds something to show: a message with text, or any other item."""
    return any(not is_message(item) or item.text for item in response.output)


# This module is imported on a background thread while the request is in flight (start-up):
# building the parser here keeps markdown-it's import and set-up off the first token's paint.
warm_up_parser()
