"""Streaming behaviour: throttled redraws, a live region never taller than the screen,
completed blocks printed once, interrupted answers kept."""

from __future__ import annotations

from tests_render_helpers import (  # type: ignore[import-not-found]
    FakeClock,
    Screen,
    real_loop_run,
    render_plain_text,
)

from forge_cli.protocol import Message, OutputText, Response, TextBuffer
from forge_cli.render.rich_renderer import RichRenderer


def _stream(chunks: list[str]) -> list[Response]:
    buffer = TextBuffer()
    snaps = []
    for chunk in chunks:
        buffer.append(chunk)
        part = OutputText(text="").with_view(buffer.view())
        snaps.append(
            Response(
                id="r",
                status="in_progress",
                output=[Message(id="m", status="in_progress", content=[part])],
            )
        )
    return snaps


def _final(snaps: list[Response]) -> Response:
    text = snaps[-1].output_text
    return Response(
        id="r",
        status="completed",
        output=[Message(id="m", status="completed", content=[OutputText(text=text)])],
    )


def test_redraws_are_throttled_to_15_per_second() -> None:
    clock = FakeClock(0.001)  # 1000 snapshots per simulated second
    renderer = RichRenderer(Screen().console(), clock=clock)
    for snap in _stream([f"word{i} " for i in range(3000)]):
        renderer.on_snapshot(snap)
    seconds = clock.now
    assert renderer.redraws <= 15 * seconds + 1
    assert renderer.redraws >= 10 * seconds  # it does keep redrawing


def test_live_region_never_exceeds_the_terminal_height() -> None:
    screen = Screen(width=60, height=10)
    renderer = RichRenderer(screen.console(height=10), clock=FakeClock(1.0))
    lines = [f"line {i}\n" for i in range(50)]
    for snap in _stream(["```\n", *lines]):
        renderer.on_snapshot(snap)
        console = renderer.console
        lines_drawn = console.render_lines(renderer._live_view(snap), console.options, pad=False)
        assert len(lines_drawn) <= 9
    assert "line 49" in screen.text().splitlines()[-1] or "line 49" in screen.text()


def test_completed_blocks_are_printed_once_and_final_equals_one_shot() -> None:
    screen = Screen()
    renderer = RichRenderer(screen.console(), clock=FakeClock(0.2))
    chunks = [f"Paragraph {i} has some words.\n\n" for i in range(60)]
    snaps = _stream(chunks)
    for snap in snaps:
        renderer.on_snapshot(snap)
    final = _final(snaps)
    renderer.finish(final)
    text = screen.text()
    for i in range(60):
        assert text.count(f"Paragraph {i} has") == 1
    assert text == render_plain_text(renderer.render_static(final))


def test_interrupted_answer_is_kept_and_marked() -> None:
    screen = Screen()
    renderer = RichRenderer(screen.console(), clock=FakeClock(0.2))
    snaps = _stream(["Half of an ans", "wer that was cut"])
    for snap in snaps:
        renderer.on_snapshot(snap)
    renderer.finish(interrupted=True)
    text = screen.text()
    assert "Half of an answer that was cut" in text
    assert text.splitlines()[-1] == "■ interrupted"


def test_agent_events_become_notices() -> None:
    """The real AgentLoop's events: blocked, failed, the limit and a retry each get one line."""
    run = real_loop_run()
    screen = Screen()
    renderer = RichRenderer(screen.console(), clock=FakeClock(0.2))
    for update in run.updates:
        if isinstance(update, Response):
            renderer.on_snapshot(update)
        else:
            renderer.on_event(update)
    renderer.finish(run.final)
    text = " ".join(screen.text().split())
    assert "⊘ tool call blocked by a hook: rm (deleting files is not allowed)" in text
    assert "✗ tool call failed: broken (Error: 'broken' raised RuntimeError: the disk is" in text
    assert (
        "stopped after 4 model requests in 3 rounds (the tool iteration limit); "
        "calls not run: lookup" in text
    )
    assert "retrying the model (attempt 1): the reply is not valid JSON" in text
    # Started and completed calls and new iterations are not news: the snapshots show them.
    assert "iteration started" not in text
    assert "tool_call.started" not in text


def test_hundreds_of_blocks_settling_at_once_print_as_one_shot() -> None:
    """An answer that streamed faster than the redraws settles all its blocks at the end: they
    are printed a few dozen at a time (bounded memory), and the screen is the one-shot's."""
    screen = Screen()
    renderer = RichRenderer(screen.console(), clock=FakeClock(0.0))  # no redraw falls due
    chunks = [f"Paragraph {i} has some words.\n\n" for i in range(300)]
    snaps = _stream(chunks)
    for snap in snaps:
        renderer.on_snapshot(snap)
    assert renderer.redraws == 1  # the first content only: nothing settled during the stream
    final = _final(snaps)
    renderer.finish(final)
    text = screen.text()
    assert all(text.count(f"Paragraph {i} has") == 1 for i in range(300))
    assert text == render_plain_text(renderer.render_static(final))
