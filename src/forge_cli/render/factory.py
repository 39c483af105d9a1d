"""The API the CLI and REPL call: :func:`make_renderer` and the :class:`Renderer` protocol."""

from __future__ import annotations

import time
from typing import Protocol, TextIO

from forge_cli.errors import UsageError
from forge_cli.protocol.citations import Citation
from forge_cli.protocol.loop_events import LoopEvent
from forge_cli.protocol.response import Response
from forge_cli.render.console import Mode, make_console
from forge_cli.render.timing import Clock

__all__ = ["Renderer", "make_renderer"]


class Renderer(Protocol):
    """Draws one answer. Call ``on_snapshot`` per snapshot, ``on_event`` per agent-loop event,
    then ``finish`` once (also after Ctrl+C or an error, so the partial answer is not lost)."""

    @property
    def citations(self) -> list[Citation]:
        """The numbered sources (``/sources``); complete after ``finish``."""
        ...

    def on_snapshot(self, response: Response) -> None:
        """The next snapshot of the answer."""
        ...

    def on_event(self, event: LoopEvent) -> None:
        """An agent-loop event (typed; dispatch with ``match``, see ``render/events.py``)."""
        ...

    def tick(self) -> bool:
        """Redraw if something is stale and the throttle allows; whether the screen changed.

        Drivers call it :meth:`next_tick_in` seconds after an update so a throttled snapshot is
        drawn even when the stream stalls, and running tool calls' elapsed times keep counting.
        """
        ...

    def next_tick_in(self) -> float | None:
        """Seconds until :meth:`tick` is due, or ``None`` when nothing needs drawing (idle)."""
        ...

    def finish(
        self,
        response: Response | None = None,
        *,
        interrupted: bool = False,
        error: BaseException | str | None = None,
        status: str | None = None,
    ) -> None:
        """The answer ended (``response`` is the final snapshot; default: the last one seen).

        ``status`` is the turn's outcome from the turn runner (``completed``, ``incomplete``,
        ``failed``, ``interrupted``); the JSON document reports it, the terminal views show the
        error and the response's own state.
        """
        ...


def make_renderer(
    mode: Mode,
    *,
    stdout: TextIO,
    stderr: TextIO,
    ascii: bool = False,
    show_reasoning: bool = False,
    show_errors: bool = True,
    width: int | None = None,
    height: int | None = None,
    color: bool | None = None,
    force_terminal: bool | None = None,
    clock: Clock = time.monotonic,
) -> Renderer:
    """A renderer for one answer in ``mode`` (see :func:`~forge_cli.render.console.choose_mode`).

    ``show_errors=False``: a failed answer is not described by the renderer, because the caller
    reports the error itself (JSON documents always keep it).
    """
    if mode == "rich":
        from forge_cli.render.rich_renderer import RichRenderer

        console = make_console(stdout, color=color, width=width, height=height,
                               force_terminal=force_terminal)  # fmt: skip
        return RichRenderer(console, ascii=ascii, show_reasoning=show_reasoning,
                            show_errors=show_errors, clock=clock)  # fmt: skip
    if mode == "plain":
        from forge_cli.render.plain import PlainRenderer

        return PlainRenderer(stdout, stderr, ascii=ascii, show_reasoning=show_reasoning,
                             show_errors=show_errors, clock=clock, width=width or 100)  # fmt: skip
    if mode == "json":
        from forge_cli.render.json_renderer import JsonRenderer

        return JsonRenderer(stdout, clock=clock, stderr=stderr)
    if mode == "jsonl":
        from forge_cli.render.json_renderer import JsonlRenderer

        return JsonlRenderer(stdout, clock=clock)
    raise UsageError(f"unknown output mode {mode!r} (expected rich, plain, json or jsonl)")
