"""How a turn reaches the screen: the :class:`TurnView` seam over the render layer.

The chat session and ``forge ask`` only talk to a ``TurnView``; :class:`RendererView` draws with
one of the render layer's renderers (rich, plain, json or jsonl). There is no second renderer
here: a session built without a view factory uses the plain renderer.

:class:`RendererView` also keeps a throttled renderer's screen fresh between updates: after each
update it arms one event-loop timer for when the renderer says a redraw is due (a throttled
snapshot, a running tool call's elapsed time), so whoever drives the view -- the chat session,
``forge ask`` -- needs no loop of its own, and the stream is never read from another task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from forge_cli.agent.turn import OutcomeSink, TurnOutcome, UpdateSink
from forge_cli.errors import OutputError

if TYPE_CHECKING:
    from forge_cli.agent.turn import TurnStatus
    from forge_cli.protocol.loop_events import AnswerUpdate, LoopEvent
    from forge_cli.protocol.response import Response

__all__ = [
    "RendererView",
    "Scheduler",
    "TurnView",
    "ViewFactory",
    "view_end",
    "view_sink",
]


class TurnView(Protocol):
    """Draws one turn from its snapshots."""

    def update(self, snapshot: Response) -> None:
        """Show the latest snapshot."""
        ...

    def event(self, event: LoopEvent) -> None:
        """An agent-loop event (a call blocked or failed, the iteration limit, a notice...)."""
        ...

    def finish(
        self, snapshot: Response | None, *, status: TurnStatus, error: BaseException | None
    ) -> None:
        """The turn ended (``completed``, ``interrupted``, ``failed`` or ``incomplete``)."""
        ...


ViewFactory = Callable[[], TurnView]


def view_sink(view: TurnView) -> UpdateSink:
    """The runner's ``on_update`` for ``view``: snapshots to ``update``, events to ``event``."""

    def sink(update: AnswerUpdate) -> None:
        # Imported here: `forge ask` sends its request before the response models load.
        from forge_cli.protocol.response import Response

        match update:
            case Response():
                view.update(update)
            case _:
                view.event(update)

    return sink


def view_end(view: TurnView) -> OutcomeSink:
    """The turn runner's ``on_end`` for ``view``: finish it with the outcome."""

    def end(outcome: TurnOutcome) -> None:
        view.finish(outcome.response, status=outcome.status, error=outcome.error)

    return end


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


class RendererView:
    """A :class:`TurnView` over a render-layer ``Renderer`` (rich, plain, json or jsonl).

    ``renderer`` may be a zero-argument factory: the renderer (and rich) is then created on
    first use, after the request went out, so start-up does not wait for it. ``scheduler``
    (default: the running event loop's ``call_later``) fires the renderer's ``tick`` when its
    ``next_tick_in`` is due; at most one timer is pending and none when the renderer is idle.
    ``before_renderer`` runs before the factory (the warm-up thread, which imports the
    renderer's modules, is waited for: ``StartUp.wait_for_imports``).
    """

    def __init__(
        self,
        renderer: Any,
        *,
        stream: bool = True,
        report_errors: bool = True,
        scheduler: Scheduler | None = None,
        before_renderer: Callable[[], None] | None = None,
    ) -> None:
        self._renderer = renderer
        self._before_renderer = before_renderer
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
            if self._before_renderer is not None:
                self._before_renderer()
            self._renderer = self._renderer()
            self._lazy = False
        return self._renderer

    def update(self, snapshot: Response) -> None:
        """Pass the snapshot on (unless streaming is off)."""
        self._raise_tick_error()
        if self.stream:
            self.renderer.on_snapshot(snapshot)
            self._arm()

    def event(self, event: LoopEvent) -> None:
        """Pass an agent-loop event on."""
        self._raise_tick_error()
        self.renderer.on_event(event)
        self._arm()

    def finish(
        self, snapshot: Response | None, *, status: TurnStatus, error: BaseException | None
    ) -> None:
        """Let the renderer print the rest, the sources and the status note."""
        self._finished = True
        self._disarm()
        shown = error if self.report_errors else None
        # A turn our own output ended (a full disk) is kept as interrupted, but nobody interrupted
        # it: its error line says what happened.
        interrupted = status == "interrupted" and not isinstance(error, OutputError)
        self.renderer.finish(snapshot, interrupted=interrupted, error=shown, status=status)

    # -- keeping the screen fresh between updates --------------------------------------------

    def _arm(self) -> None:
        """Schedule the next tick the renderer asks for (one pending timer at most)."""
        if self._timer is not None or self._finished or self._tick_error is not None:
            return
        delay = self.renderer.next_tick_in()
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
