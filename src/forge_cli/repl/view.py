"""How a turn reaches the screen: the :class:`TurnView` seam and a plain fallback.

The chat session only talks to a ``TurnView``. :func:`default_view_factory` uses the render
layer's renderers when they are installed and otherwise :class:`PlainTurnView`, a small
append-only text view (answer on ``out``, tool lines on ``out`` too so the REPL reads in order).

:class:`RendererView` also keeps a throttled renderer's screen fresh between updates: after each
update it arms one event-loop timer for when the renderer says a redraw is due (a throttled
snapshot, a running tool call's elapsed time), so whoever drives the view -- the chat session,
``forge ask`` -- needs no loop of its own, and the stream is never read from another task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TextIO

if TYPE_CHECKING:
    from forge_cli.protocol.response import Response
from forge_cli.sanitize import sanitize

__all__ = [
    "PlainTurnView",
    "RendererView",
    "Scheduler",
    "TurnView",
    "ViewFactory",
]


class TurnView(Protocol):
    """Draws one turn from its snapshots."""

    def update(self, snapshot: Response) -> None:
        """Show the latest snapshot."""
        ...

    def event(self, event: object) -> None:
        """An agent-loop event (tool started, notice, iteration limit...)."""
        ...

    def finish(self, snapshot: Response | None, *, status: str, error: str | None) -> None:
        """The turn ended (``completed``, ``interrupted``, ``failed`` or ``incomplete``)."""
        ...


ViewFactory = Callable[[], TurnView]


class _Timer(Protocol):
    def cancel(self) -> None: ...


Scheduler = Callable[[float, Callable[[], None]], _Timer]
"""Runs a callback after a delay in seconds (``loop.call_later`` of the running loop)."""


def _loop_scheduler(delay: float, callback: Callable[[], None]) -> _Timer | None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # driven outside an event loop: nothing can fire later
        return None
    return loop.call_later(delay, callback)


def _tool_label(item: object) -> str:
    kind = str(getattr(item, "type", "tool")).removesuffix("_call")
    queries = getattr(item, "queries", None) or []
    if hasattr(item, "all_queries"):
        queries = item.all_queries()
    name = getattr(item, "name", None) or getattr(item, "file_name", None)
    detail = " ".join(f'"{q}"' for q in queries) if queries else (name or "")
    return f"{kind} {detail}".strip()


def _tool_summary(item: object) -> str:
    results = getattr(item, "results", None)
    if isinstance(results, list):
        return f"{len(results)} result{'s' if len(results) != 1 else ''}"
    return str(getattr(item, "status", "") or "")


class PlainTurnView:
    """Append-only text: one line per tool call as it starts and ends, then the answer text."""

    def __init__(self, out: TextIO, *, ascii_only: bool = False) -> None:
        self.out = out
        self.ascii_only = ascii_only
        self._shown_tools: dict[str, str] = {}
        self._printed: dict[int, int] = {}
        self._at_line_start = True

    def _write(self, text: str) -> None:
        if text:
            self.out.write(sanitize(text))
            self._at_line_start = text.endswith("\n")
            self.out.flush()

    def _line(self, text: str) -> None:
        if not self._at_line_start:
            self._write("\n")
        self._write(text + "\n")

    def update(self, snapshot: Response) -> None:
        """Print what is new since the last snapshot."""
        from forge_cli.protocol.guards import is_message, is_reasoning, is_tool_call

        for index, item in enumerate(snapshot.output):
            if is_message(item):
                text = item.text
                done = self._printed.get(index, 0)
                if len(text) > done:
                    self._write(text[done:])
                    self._printed[index] = len(text)
            elif is_tool_call(item) and not is_reasoning(item):
                key = getattr(item, "id", None) or f"#{index}"
                state = "done" if getattr(item, "is_done", False) else "running"
                if self._shown_tools.get(key) != state:
                    self._shown_tools[key] = state
                    mark = ("*" if self.ascii_only else "⏺") if state == "running" else "="
                    if state == "done":
                        mark = "+" if self.ascii_only else "✓"
                    label = _tool_label(item)
                    suffix = f" — {_tool_summary(item)}" if state == "done" else ""
                    self._line(f"{mark} {label}{suffix}")

    def event(self, event: object) -> None:
        """Agent-loop notices are shown as one line; other events are visible in snapshots."""
        message = getattr(event, "message", None)
        if isinstance(message, str):
            self._line(f"! {message}")

    def finish(self, snapshot: Response | None, *, status: str, error: str | None) -> None:
        """Finish the answer: status marker and the numbered sources."""
        if snapshot is not None:
            self.update(snapshot)
        if status == "interrupted":
            self._line("[interrupted]")
        elif status in ("failed", "incomplete") and error:
            self._line(f"error: {error}")
        elif not self._at_line_start:
            self._write("\n")
        from forge_cli.conversations.export import sources_of  # only when a turn ends

        sources = sources_of(snapshot) if snapshot is not None else []
        if sources:
            self._write("\nSources:\n")
            for number, label in sources:
                self._write(f"  [{number}] {label}\n")


class RendererView:
    """A :class:`TurnView` over a render-layer ``Renderer`` (rich, plain, json or jsonl).

    ``renderer`` may be a zero-argument factory: the renderer (and rich) is then created on
    first use, after the request went out, so start-up does not wait for it. ``scheduler``
    (default: the running event loop's ``call_later``) fires the renderer's ``tick`` when its
    ``next_tick_in`` is due; at most one timer is pending and none when the renderer is idle.
    """

    def __init__(
        self,
        renderer: Any,
        *,
        stream: bool = True,
        report_errors: bool = True,
        scheduler: Scheduler | None = None,
    ) -> None:
        self._renderer = renderer
        self._lazy = callable(renderer) and not hasattr(renderer, "on_snapshot")
        self.stream = stream
        self.report_errors = report_errors
        """``False`` when the caller reports errors itself (``forge ask`` prints one line)."""
        self._schedule: Callable[[float, Callable[[], None]], _Timer | None] = (
            scheduler or _loop_scheduler
        )
        self._timer: _Timer | None = None
        self._tick_error: Exception | None = None
        self._finished = False

    @property
    def renderer(self) -> Any:
        """The renderer, created on first use when a factory was given."""
        if self._lazy:
            self._renderer = self._renderer()
            self._lazy = False
        return self._renderer

    def update(self, snapshot: Response) -> None:
        """Pass the snapshot on (unless streaming is off)."""
        self._raise_tick_error()
        if self.stream:
            self.renderer.on_snapshot(snapshot)
            self._arm()

    def event(self, event: object) -> None:
        """Pass an agent-loop event on."""
        self._raise_tick_error()
        self.renderer.on_event(event)
        self._arm()

    def finish(self, snapshot: Response | None, *, status: str, error: str | None) -> None:
        """Let the renderer print the rest, the sources and the status note."""
        self._finished = True
        self._disarm()
        shown = error if self.report_errors else None
        self.renderer.finish(snapshot, interrupted=status == "interrupted", error=shown)

    # -- keeping the screen fresh between updates --------------------------------------------

    def _arm(self) -> None:
        """Schedule the next tick the renderer asks for (one pending timer at most)."""
        if self._timer is not None or self._finished or self._tick_error is not None:
            return
        next_tick_in = getattr(self.renderer, "next_tick_in", None)
        delay = next_tick_in() if next_tick_in is not None else None
        if delay is not None:
            self._timer = self._schedule(max(0.0, delay), self._on_timer)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self) -> None:
        self._timer = None
        if self._finished:
            return
        try:
            self.renderer.tick()
        except Exception as exc:  # a timer callback has nobody to raise to: the next update does
            self._tick_error = exc
            return
        self._arm()

    def _raise_tick_error(self) -> None:
        if self._tick_error is not None:
            error, self._tick_error = self._tick_error, None
            raise error
