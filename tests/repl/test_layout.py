"""The one wrapper behind every slash command's output (forge_cli.repl.layout)."""

from __future__ import annotations

import io

import pytest

from forge_cli.conversations import Conversation
from forge_cli.protocol import Request, Response
from forge_cli.repl import ChatSession
from forge_cli.repl.layout import Columns, Para, cells, layout, wrap
from forge_cli.sanitize import sanitize_inline

pytestmark = pytest.mark.anyio


def test_words_wrap_whole_under_the_hang() -> None:
    lines = wrap("you> how do I configure the zebra service on another port", 20, hang=5)
    assert lines == [
        "you> how do I",
        "     configure the",
        "     zebra service",
        "     on another port",
    ]
    assert all(len(line) <= 20 for line in lines)


def test_a_token_longer_than_a_line_is_folded_not_lost() -> None:
    name = "a_really_long_file_name_without_any_spaces.md"
    lines = wrap(f"[1] {name} (0.98)", 20, hang=4)
    assert all(len(line) <= 20 for line in lines)
    assert all(line.startswith("    ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines).replace(" ", "") == f"[1]{name}(0.98)"


def test_spaces_inside_a_line_are_kept_and_the_break_drops_them() -> None:
    assert wrap("  id    3 turns  title", 40) == ["  id    3 turns  title"]
    assert wrap("  id    3 turns  title", 12, hang=4) == ["  id    3", "    turns", "    title"]


def test_wide_characters_count_two_cells() -> None:
    assert cells("日本語") == 6
    lines = wrap("ai>  日本語の テキストは とても 長い", 14, hang=5)
    assert all(cells(line) <= 14 for line in lines)
    assert lines[0] == "ai>  日本語の"


def test_no_width_no_wrapping() -> None:
    text = "word " * 100
    assert wrap(text, None) == [text.rstrip()]


def test_columns_wrap_under_the_right_column_or_go_under_the_left_when_narrow() -> None:
    rows = [("file_1", "a short name"), ("file_22", "a much longer name that needs to wrap")]
    wide = Columns(rows).lines(36, str)
    assert wide == [
        "  file_1   a short name",
        "  file_22  a much longer name that",
        "           needs to wrap",
    ]
    narrow = Columns(rows).lines(30, str)
    assert narrow == [
        "  file_1",
        "      a short name",
        "  file_22",
        "      a much longer name that",
        "      needs to wrap",
    ]


def test_rows_are_cleaned_before_they_are_measured() -> None:
    lines = layout([Para("[1] evil\x1b[31m.md and more words", hang=4)], 16, sanitize_inline)
    assert "\x1b" not in "".join(lines)
    assert all(len(line) <= 16 for line in lines)
    assert "".join(line.strip() for line in lines).startswith("[1] evil\\x1b[31m.md")


async def _never(request: Request) -> Response:  # pragma: no cover - never called
    raise AssertionError("no message should be sent")


async def test_the_session_wraps_to_its_columns_and_errors_hang_under_their_text() -> None:
    out = io.StringIO()
    session = ChatSession(Conversation(), _never, out=out)  # type: ignore[arg-type]
    session.columns = 31  # lines of at most 30 cells (the last column stays free)
    await session.handle_line("/frobnicate")
    assert out.getvalue().splitlines() == [
        "error: unknown command",
        "       /frobnicate (hint: type",
        "       /help for the list)",
    ]
    session.columns = None  # not a terminal: whole lines
    out.seek(0)
    out.truncate()
    await session.handle_line("/frobnicate")
    assert out.getvalue() == "error: unknown command /frobnicate (hint: type /help for the list)\n"


def test_a_long_path_folds_after_a_slash() -> None:
    lines = wrap("Saved c1 to /tmp/forge/data/conversations/c20261127-709fdae9.json", 30)
    assert lines == ["Saved c1 to /tmp/forge/data/", "conversations/", "c20261127-709fdae9.json"]


def test_a_clipped_para_keeps_its_lines_and_its_tail() -> None:
    text = "ai>  the zebra service listens on port 4242 and its configuration lives in etc"
    para = Para(text, hang=5, max_lines=2, tail=" [interrupted]")
    lines = para.lines(30, str)
    assert len(lines) == 2
    assert lines[1].endswith("… [interrupted]")
    assert all(cells(line) <= 30 for line in lines)
    assert text.startswith(" ".join(line.strip() for line in lines).split("…")[0].rstrip())
    assert para.lines(None, str) == [text + " [interrupted]"]  # no width: nothing is cut
