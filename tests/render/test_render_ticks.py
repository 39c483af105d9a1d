"""Ticks: the latest state reaches the screen even when the stream stalls after a throttled
snapshot, running tool calls keep their elapsed time counting, and nothing is drawn when idle.

The renderer is tested with a hand-set clock; the view's timer with a fake scheduler and, end to
end, with the real event loop (waiting on an event that the redraw sets, never sleeping).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from tests_render_helpers import Screen, render_plain_text  # type: ignore[import-not-found]

from forge_cli.conversations import Conversation, ConversationStore
from forge_cli.protocol import FileSearchCall, Message, OutputText, Request, Response
from forge_cli.render.rich_renderer import RichRenderer
from forge_cli.repl import ChatSession
from forge_cli.repl.view import RendererView

INTERVAL = 1 / 15


class ManualClock:
    """A clock that only moves when the test sets it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _message(text: str, *, done: bool = False) -> Message:
    status = "completed" if done else "in_progress"
    return Message(id="m", status=status, content=[OutputText(text=text)])


def _snap(text: str, *, done: bool = False) -> Response:
    status = "completed" if done else "in_progress"
    return Response(id="r", status=status, output=[_message(text, done=done)])


def _searching(*, done: bool = False) -> Response:
    call = FileSearchCall(
        id="fs", status="completed" if done else "searching", queries=["install forge"]
    )
    return Response(id="r", status="in_progress", output=[call])


def _renderer(clock: ManualClock) -> tuple[RichRenderer, Screen]:
    screen = Screen()
    return RichRenderer(screen.console(), clock=clock), screen


# --- the renderer --------------------------------------------------------------------------


def test_the_first_content_is_drawn_at_once_even_inside_the_window() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    renderer.on_snapshot(Response(id="r", status="in_progress"))  # nothing to show yet
    renderer.on_snapshot(_snap(""))  # an empty message: still nothing
    assert renderer.redraws == 1
    clock.now = 0.01
    renderer.on_snapshot(_snap("Zephyrine"))  # the first text, inside the window: drawn now
    assert renderer.redraws == 2
    assert "Zephyrine" in screen.text()
    clock.now = 0.02
    renderer.on_snapshot(_snap("Zephyrine opens"))  # later text is throttled as before
    assert renderer.redraws == 2


def test_a_throttled_snapshot_is_drawn_by_the_next_tick_after_the_interval() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    renderer.on_snapshot(_snap("Hel"))
    assert renderer.redraws == 1
    clock.now = 0.01
    renderer.on_snapshot(_snap("Hello, stalled world"))  # inside the window: not drawn
    assert renderer.redraws == 1
    assert "Hello, stalled world" not in screen.text()
    assert renderer.next_tick_in() == pytest.approx(INTERVAL - 0.01)

    clock.now = 0.05
    assert renderer.tick() is False  # still inside the window
    assert "Hello, stalled world" not in screen.text()

    clock.now = 0.01 + INTERVAL
    assert renderer.tick() is True
    assert "Hello, stalled world" in screen.text()
    assert renderer.redraws == 2


def test_ticks_when_clean_do_not_redraw_or_write() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    renderer.on_snapshot(_snap("Drawn at once."))
    written = screen.file.getvalue()
    assert renderer.next_tick_in() is None  # idle and clean: nobody needs to wake up
    for step in range(1, 50):
        clock.now = step * 0.5
        assert renderer.tick() is False
    assert renderer.redraws == 1
    assert screen.file.getvalue() == written


def test_running_tool_calls_keep_their_elapsed_time_counting() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    renderer.on_snapshot(_searching())
    assert "0.0s" in screen.text()
    clock.now = 0.01
    assert renderer.tick() is False  # throttle: at most 15 redraws per second
    assert renderer.next_tick_in() == pytest.approx(INTERVAL - 0.01)
    clock.now = 2.0
    assert renderer.tick() is True
    assert "2.0s" in screen.text()
    clock.now = 3.5
    assert renderer.tick() is True
    assert "3.5s" in screen.text()
    renderer.finish(_searching(done=True))
    assert renderer.next_tick_in() is None
    assert renderer.tick() is False


def test_ticking_at_any_rate_draws_at_most_15_times_per_second() -> None:
    clock = ManualClock()
    renderer, _ = _renderer(clock)
    renderer.on_snapshot(_searching())
    for step in range(1, 3001):  # 3 simulated seconds, a tick every millisecond
        clock.now = step * 0.001
        renderer.tick()
    assert 10 * 3 <= renderer.redraws <= 15 * 3 + 1


def test_ticks_between_snapshots_still_end_equal_to_a_one_shot_render() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    text = ""
    for i in range(40):
        text += f"Paragraph {i} of the answer.\n\n" if i % 3 else f"Word {i} "
        clock.now += 0.01
        renderer.on_snapshot(_snap(text))
        clock.now += 0.05
        renderer.tick()
    final = _snap(text, done=True)
    renderer.finish(final)
    assert screen.text() == render_plain_text(renderer.render_static(final))


def test_an_interrupted_answer_shows_the_latest_text_and_is_marked() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    renderer.on_snapshot(_snap("Part"))
    clock.now = 0.001
    renderer.on_snapshot(_snap("Partial answer, then Ctrl+C"))
    renderer.finish(interrupted=True)
    lines = screen.text().splitlines()
    assert "Partial answer, then Ctrl+C" in lines
    assert lines[-1] == "■ interrupted"


# --- the view's timer ----------------------------------------------------------------------


class FakeScheduler:
    """Records timers instead of running them; the test fires them."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, Callable[[], None], FakeTimer]] = []

    def __call__(self, delay: float, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer()
        self.pending.append((delay, callback, timer))
        return timer

    def live(self) -> list[tuple[float, Callable[[], None], FakeTimer]]:
        return [entry for entry in self.pending if not entry[2].cancelled]

    def fire(self) -> None:
        (entry,) = self.live()
        self.pending.remove(entry)
        entry[1]()


class FakeTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def test_the_view_arms_one_timer_for_a_throttled_snapshot_and_none_when_clean() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    scheduler = FakeScheduler()
    view = RendererView(renderer, scheduler=scheduler)
    view.update(_snap("First"))
    assert scheduler.live() == []  # drawn at once, nothing running: no timer
    clock.now = 0.01
    view.update(_snap("First and second"))
    clock.now = 0.02
    view.update(_snap("First and second and third"))
    ((delay, _, _),) = scheduler.live()  # one timer, however many updates
    assert delay == pytest.approx(INTERVAL - 0.01)
    clock.now = 0.1
    scheduler.fire()
    assert "First and second and third" in screen.text()
    assert scheduler.live() == []  # clean again: no timer re-armed


def test_the_view_keeps_ticking_while_a_tool_runs_and_stops_at_finish() -> None:
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    scheduler = FakeScheduler()
    view = RendererView(renderer, scheduler=scheduler)
    view.update(_searching())
    for second in (1, 2, 3):
        clock.now = float(second)
        scheduler.fire()
        assert f"{second}.0s" in screen.text()
    assert len(scheduler.live()) == 1
    view.finish(_searching(done=True), status="completed", error=None)
    assert scheduler.live() == []


def test_a_failing_tick_is_raised_by_the_next_update() -> None:
    class Broken:
        def on_snapshot(self, response: Response) -> None: ...

        def next_tick_in(self) -> float:
            return 0.0

        def tick(self) -> bool:
            raise OSError("stdout closed")

    scheduler = FakeScheduler()
    view = RendererView(Broken(), scheduler=scheduler)
    view.update(_snap("x"))
    scheduler.fire()
    assert scheduler.live() == []
    with pytest.raises(OSError, match="stdout closed"):
        view.update(_snap("y"))


@pytest.mark.anyio
async def test_a_stalled_chat_turn_shows_its_latest_text_then_ctrl_c_keeps_it(
    tmp_path: Path,
) -> None:
    """End to end on the real event loop: the responder stalls on a gate after a throttled
    snapshot; the view's timer draws it; cancelling keeps the partial answer, marked."""
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    drawn = asyncio.Event()
    tick = renderer.tick

    def watched_tick() -> bool:
        result = tick()
        if result and "Partial answer" in screen.text():
            drawn.set()
        return result

    renderer.tick = watched_tick  # type: ignore[method-assign]
    gate = asyncio.Event()

    async def responder(request: Request) -> AsyncIterator[Response]:
        yield _snap("Par")
        clock.now = 0.001
        yield _snap("Partial answer")  # throttled: only a later tick can draw it
        clock.now = 1.0
        await gate.wait()  # the rest of the answer never comes
        yield _snap("Partial answer and the rest", done=True)

    out = Screen().file
    session = ChatSession(
        Conversation(),
        responder,
        out=out,
        store=ConversationStore(tmp_path),
        view_factory=lambda: RendererView(renderer),
    )
    task = asyncio.create_task(session.handle_line("tell me everything"))
    await asyncio.wait_for(drawn.wait(), timeout=10)
    assert "Partial answer" in screen.text()
    session.cancel()
    assert await task is True
    lines = screen.text().splitlines()
    assert "Partial answer" in lines
    assert lines[-1] == "■ interrupted"
    assert session.conversation.turns[0].status == "interrupted"


# --- Ctrl+C echo at the right edge ---------------------------------------------------------


@pytest.mark.parametrize("text", ["Short partial line", "x" * 99, "word " * 40])
def test_an_echoed_ctrl_c_does_not_leave_a_stale_copy_of_the_live_region(text: str) -> None:
    """The terminal echoes ``^C`` where the cursor rests: at the right edge it would wrap, and
    clearing the live region would then miss its first line."""
    clock = ManualClock()
    renderer, screen = _renderer(clock)
    snapshot = _snap(text)
    renderer.on_snapshot(snapshot)
    screen.file.write("^C")  # what the tty prints when Ctrl+C is pressed
    renderer.finish(interrupted=True)
    assert screen.text().splitlines()[-1] == "■ interrupted"
    assert screen.text() == render_plain_text(renderer.render_static(snapshot, interrupted=True))


def test_a_finished_tool_call_waiting_for_the_next_item_does_not_keep_ticking() -> None:
    clock = ManualClock()
    renderer, _ = _renderer(clock)
    renderer.on_snapshot(_searching())
    clock.now = 1.0
    renderer.on_snapshot(_searching(done=True))  # finished, but not settled until a later item
    assert renderer.redraws == 2
    assert renderer.next_tick_in() is None
