"""The first-paint preview (render/preview.py, ADR-0018) and the views taking over from it.

The preview paints the start of the first message from raw stream events while the renderer's
modules load. What it paints must be what the views show: the rich view's first frame replaces
the line cell for cell (same screen as a view that never had a preview), plain output goes on
after it (same bytes), and nothing a view would hold back (keys, Markdown, citation markers) is
painted.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from tests_render_helpers import FakeClock, Screen

from forge_cli import redact
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.response import Response
from forge_cli.render.items.message import PROSE_WIDTH as MESSAGE_PROSE_WIDTH
from forge_cli.render.plain import PlainRenderer
from forge_cli.render.preview import PROSE_WIDTH, TextPreview
from forge_cli.render.rich_renderer import RichRenderer
from forge_cli.stream import SnapshotBuilder

WHERE = {"item_id": "m1", "output_index": 0, "content_index": 0}
ITEM = {"id": "m1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
START = [
    StreamEvent("response.created", {"response": {"id": "r1", "status": "in_progress"}}),
    StreamEvent("response.output_item.added", {"output_index": 0, "item": ITEM}),
    StreamEvent(
        "response.content_part.added",
        {**WHERE, "part": {"type": "output_text", "text": "", "annotations": []}},
    ),
]


def delta(text: str) -> StreamEvent:
    return StreamEvent("response.output_text.delta", {**WHERE, "delta": text})


@pytest.fixture(autouse=True)
def _no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_secrets", ())  # secrets of earlier tests would hold text back


class Stream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1


def preview(*batches: list[StreamEvent], mode: str = "plain") -> tuple[TextPreview, list[bool]]:
    stream = Stream()
    shown = TextPreview(stream, mode="rich" if mode == "rich" else "plain")
    return shown, [shown(batch) for batch in batches]


def test_the_prose_width_is_the_rich_views() -> None:
    assert PROSE_WIDTH == MESSAGE_PROSE_WIDTH


def test_it_paints_the_start_of_the_first_message_until_something_is_not_plain_text() -> None:
    shown, open_ = preview(
        [*START, delta("Zephyrine")], [delta(" opens the")], [delta(" answer.\n\n## Next")]
    )
    assert shown.shown == "Zephyrine opens the answer."
    assert open_ == [True, True, False]  # stopped at the newline, for good
    assert shown([delta(" more")]) is False
    assert shown.shown == "Zephyrine opens the answer."


def test_each_piece_is_written_and_flushed_at_once() -> None:
    stream = Stream()
    shown = TextPreview(stream, mode="plain")
    shown([*START, delta("Hello")])
    assert (stream.getvalue(), stream.flushes) == ("Hello", 1)
    shown([delta(" world")])
    assert (stream.getvalue(), stream.flushes) == ("Hello world", 2)


@pytest.mark.parametrize(
    "text",
    ["# Title", "- item", "1. item", "> quote", "`code`", "*em*", "  indented", "[1] cited",
     "\u202eevil", "\x1b[2Jclear", "| a | b |", "<b>", "&amp;"],
)  # fmt: skip
def test_nothing_is_painted_that_a_view_would_show_differently(text: str) -> None:
    shown, _ = preview([*START, delta(text)])
    assert shown.shown == ""


@pytest.mark.parametrize(
    ("text", "painted"),
    [
        ("Use **bold** here", "Use "),
        ("A key_name", "A key"),
        ("Two  spaces", "Two"),
        ("See [1] there", "See "),
        ("It costs 5 $, right?", "It costs 5 $, right?"),
        ("Send the Bearer token", "Send the "),
    ],
)
def test_painting_stops_before_the_first_character_in_doubt(text: str, painted: str) -> None:
    shown, open_ = preview([*START, delta(text)])
    assert shown.shown == painted
    assert open_ == [painted == text]


def test_a_key_split_over_deltas_is_never_painted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_secrets", ("sk-live-1234567890",))
    shown, _ = preview([*START, delta("The key is sk-li")], [delta("ve-1234567890 now")])
    assert "sk-" not in shown.shown
    assert "1234567890" not in shown.shown
    assert shown.shown == "The key is "


def test_only_the_first_message_of_an_answer_is_painted() -> None:
    reasoning = StreamEvent(
        "response.output_item.added", {"output_index": 0, "item": {"type": "reasoning", "id": "r"}}
    )
    shown, open_ = preview([START[0], reasoning, delta("Thinking")])
    assert (shown.shown, open_) == ("", [False])


def test_a_batch_that_stops_the_preview_paints_no_more_than_the_fold_draws_first() -> None:
    # The fold draws the stream's first delta on its own, then the rest of its batch together
    # with what came with it (an annotation that puts a marker inside that text, say).
    annotation = StreamEvent(
        "response.output_text.annotation.added",
        {**WHERE, "annotation_index": 0, "annotation": {"type": "url_citation", "url": "u"}},
    )
    shown, _ = preview([*START, delta("First"), delta(" second"), annotation])
    assert shown.shown == "First"
    shown, _ = preview([*START, delta("First")], [delta(" second"), annotation])
    assert shown.shown == "First"


def test_the_rich_preview_stays_on_the_first_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    shown, open_ = preview([*START, delta("word " * 20)], mode="rich")
    assert len(shown.shown) == 37  # room for an echoed ^C; the line erase covers it all
    assert open_ == [False]
    monkeypatch.setenv("COLUMNS", "300")
    shown, _ = preview([*START, delta("word " * 40)], mode="rich")
    assert len(shown.shown) == PROSE_WIDTH - 3


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def continue_after(self, shown: int) -> None:
        self.calls.append(("continue_after", shown))

    def adopt_line(self, shown: int) -> None:
        self.calls.append(("adopt_line", shown))


@pytest.mark.parametrize(("mode", "call"), [("plain", "continue_after"), ("rich", "adopt_line")])
def test_the_renderer_takes_over_once(mode: str, call: str) -> None:
    shown, _ = preview([*START, delta("Hello")], mode=mode)
    renderer = Recorder()
    shown.hand_over(renderer)
    shown.hand_over(renderer)
    assert renderer.calls == [(call, 5)]
    assert shown([delta(" more")]) is False  # nothing is painted after the hand-over
    empty, _ = preview([*START], mode=mode)
    empty.hand_over(renderer)
    assert renderer.calls == [(call, 5)]


# --- the views taking over ---------------------------------------------------------------------

TEXT = "Zephyrine opens the answer. It goes on a while, long enough to wrap on narrow terminals."
REST = "\n\n## Section\n\nA list:\n\n- first **bold** item\n- second item\n\nThe end."


def snapshots(*batches: list[StreamEvent]) -> list[Response]:
    builder = SnapshotBuilder()
    out = []
    for batch in batches:
        for event in batch:
            builder.apply(event)
        out.append(builder.snapshot)
    done = StreamEvent("response.completed", {"response": {"id": "r1", "status": "completed"}})
    builder.apply(done)
    out.append(builder.snapshot)
    return out


def rich_screen(columns: int, painted: str, snaps: list[Response], adopt: bool) -> Screen:
    screen = Screen(columns, 40)
    screen.file.write(painted)
    renderer = RichRenderer(screen.console(), clock=FakeClock())  # every snapshot is due
    if adopt:
        renderer.adopt_line(len(painted))
    for snap in snaps[:-1]:
        renderer.on_snapshot(snap)
        # The painted words never vanish, nor show twice, not even for one frame.
        assert " ".join(screen.text().split()).startswith(painted.strip())
        assert screen.text().count("Zephyrine") == 1
    return screen


@pytest.mark.parametrize("columns", [40, 100, 200])
def test_the_rich_view_draws_over_the_preview_cell_for_cell(
    columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))  # the terminal's width, as rich reads it
    first = [*START, delta("Zephyrine")]
    more = [delta(TEXT[len("Zephyrine") :])]
    rest = [delta(REST)]
    painted = TextPreview(io.StringIO(), mode="rich")
    painted(first)
    painted(more)
    assert painted.shown == TEXT[: min(columns, PROSE_WIDTH) - 3]
    # The fold's first snapshot holds the first delta only (less than was painted: not drawn,
    # or the words would vanish for a frame); the next one, from the same read, is drawn.
    snaps = snapshots(first, more, rest)
    taken_over = rich_screen(columns, painted.shown, [*snaps[:2], snaps[-1]], adopt=True)
    fresh = rich_screen(columns, "", [*snaps[1:2], snaps[-1]], adopt=False)
    assert taken_over.text() == fresh.text()
    assert "\r\x1b[2K" + "Zephyrine" in taken_over.file.getvalue()  # erased in the frame's write
    assert taken_over.text().count("Zephyrine") == 1


@pytest.mark.parametrize("columns", [40, 100, 200])
def test_the_rich_view_finishes_like_a_fresh_one(columns: int) -> None:
    first = [*START, delta(TEXT)]
    rest = [delta(REST)]
    snaps = snapshots(first, rest)
    screens = []
    for painted in (TEXT[: columns - 3], ""):
        screen = Screen(columns, 40)
        screen.file.write(painted)
        renderer = RichRenderer(screen.console(), clock=FakeClock())
        if painted:
            renderer.adopt_line(len(painted))
        for snap in snaps:
            renderer.on_snapshot(snap)
        renderer.finish(snaps[-1])
        screens.append(screen.text())
    assert screens[0] == screens[1]


def test_a_rich_view_that_never_draws_erases_the_preview() -> None:
    screen = Screen(100, 40)
    screen.file.write("Zephyrine")
    renderer = RichRenderer(screen.console(), clock=FakeClock())
    renderer.adopt_line(len("Zephyrine"))
    renderer.finish(None, interrupted=True)
    fresh = Screen(100, 40)
    RichRenderer(fresh.console(), clock=FakeClock()).finish(None, interrupted=True)
    assert screen.text() == fresh.text()


def plain_output(painted: str, snaps: list[Response]) -> str:
    out, err = io.StringIO(), io.StringIO()
    out.write(painted)
    renderer = PlainRenderer(out, err, clock=FakeClock())
    renderer.continue_after(len(painted))
    for snap in snaps:
        renderer.on_snapshot(snap)
    renderer.finish(snaps[-1])
    return out.getvalue()


def test_plain_output_goes_on_after_the_preview() -> None:
    first = [*START, delta("Zephyrine")]
    more = [delta(TEXT[len("Zephyrine") :])]
    rest = [delta(REST)]
    painted = TextPreview(io.StringIO(), mode="plain")
    painted(first)
    painted(more)
    assert painted.shown == TEXT
    snaps = snapshots(first, more, rest)
    assert plain_output(painted.shown, snaps) == plain_output("", snaps)


def test_plain_output_after_a_preview_and_nothing_else() -> None:
    out, err = io.StringIO(), io.StringIO()
    out.write("Zephyrine")
    renderer: Any = PlainRenderer(out, err, clock=FakeClock())
    renderer.continue_after(len("Zephyrine"))
    renderer.finish(None, interrupted=True)
    assert out.getvalue() == "Zephyrine\n"  # the line is ended, as after any text
