"""Plain mode writes its own lines (footer, status notes, notices, refusals) without rich, with
the bytes the colourless rich console it used before wrote (ADR-0023): a line that console would
print unchanged is written as it is (``as_printed``), any other line (too long, a tab, a control
code, a wide or combining character) still goes through it.

The expected bytes below are what the renderer wrote when every line went through the console.
"""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich._unicode_data._versions import VERSIONS
from rich.cells import _is_single_cell_widths, get_character_cell_size
from rich.console import Console
from rich.text import Text

from forge_cli.protocol.content import OutputText, Refusal
from forge_cli.protocol.items import Message
from forge_cli.protocol.loop_events import LoopEvent, Notice, ToolCallBlocked, ToolCallFailed
from forge_cli.protocol.response import Response, Usage
from forge_cli.render.glyphs import ASCII, UNICODE, Glyphs
from forge_cli.render.plain import _NARROW, PlainRenderer, as_printed


def _console_print(text: str | Text, width: int) -> str:
    """What the colourless console plain mode used for its lines writes for ``text``."""
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False,
                      highlight=False, markup=False, emoji=False)  # fmt: skip
    console.print(text, markup=False)
    return out.getvalue()


# --- the fast path writes what the console writes ------------------------------------------------

_ALPHABET = st.sampled_from(
    list("ab z.[]/:") + list("↑↓·✓✗⊘…→∴●■é") + ["\t", "\n", "\x07", "\x1b", "\r", "\x7f", "\xad"]
    + ["日", "\u0301", "\u200b", "\u200d", "\ufe0f", "\xa0", "\u2028", "😀"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(text=st.text(_ALPHABET, max_size=30), width=st.integers(1, 24))
def test_a_line_written_as_it_is_has_the_consoles_bytes(text: str, width: int) -> None:
    printed = as_printed(text, width)
    if printed is not None:
        assert printed == _console_print(text, width)
        assert printed == _console_print(Text(text, style="dim"), width)  # notes were Text


@pytest.mark.parametrize(
    "text",
    ["↑ 10 ↓ 2000 tokens · 0.0s", "in 10 / out 2000 tokens - 0.0s", "■ interrupted",
     "! incomplete: max_output_tokens", "✗ error: [bold]x[/bold] :smile:", "", "  spaced  "],
)  # fmt: skip
def test_our_usual_lines_take_the_fast_path(text: str) -> None:
    assert as_printed(text, 100) == text + "\n" == _console_print(text, 100)


@pytest.mark.parametrize("text", ["a\tb", "bell\x07", "x" * 101, "日本", "cafe\u0301", "a\u200bb"])
def test_lines_the_console_would_change_go_through_it(text: str) -> None:
    assert as_printed(text, 100) is None


def test_the_narrow_characters_are_one_cell_in_every_unicode_version() -> None:
    """rich measures its own single-cell ranges without tables; our glyphs are looked up. Every
    character of the set is one cell wide in every table rich ships, and printed as it is."""
    looked_up = sorted(c for c in _NARROW if not _is_single_cell_widths(c))
    assert looked_up, "the glyphs of our lines are in the set"
    for version in VERSIONS:
        wide = [c for c in sorted(_NARROW) if get_character_cell_size(c, version) != 1]
        assert not wide, (version, wide)
    changed = [c for c in sorted(_NARROW) if _console_print(f"<{c}>", 3) != f"<{c}>\n"]
    assert not changed


@pytest.mark.parametrize("glyphs", [UNICODE, ASCII], ids=["unicode", "ascii"])
def test_every_glyph_of_our_lines_is_narrow(glyphs: Glyphs) -> None:
    for phase in ("running", "completed", "failed", "incomplete", "cancelled", "blocked"):
        assert _NARROW.issuperset(glyphs.icon(phase))
    for text in (glyphs.sep, glyphs.interrupted, glyphs.ellipsis, glyphs.arrow, "↑↓"):
        assert _NARROW.issuperset(text)


# --- whole answers: hostile and long lines, same bytes as before ---------------------------------


@dataclass
class _Case:
    events: list[LoopEvent] = field(default_factory=list)
    error: str | None = None
    incomplete: str | None = None
    refusal: str | None = None
    interrupted: bool = False


def _stderr(case: _Case, width: int, *, ascii: bool = False) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = PlainRenderer(out, err, width=width, ascii=ascii, clock=lambda: 0.0)
    content: list[OutputText | Refusal] = [OutputText(text="Hello.")]
    if case.refusal is not None:
        content.append(Refusal(refusal=case.refusal))
    response = Response(
        id="r",
        status="incomplete" if case.incomplete else "completed",
        output=[Message(id="m", status="completed", content=content)],
        usage=Usage(input_tokens=10, output_tokens=2000),
        incomplete_details={"reason": case.incomplete} if case.incomplete else None,
    )
    renderer.on_snapshot(response)
    for event in case.events:
        renderer.on_event(event)
    renderer.finish(response, interrupted=case.interrupted, error=case.error)
    return out.getvalue(), err.getvalue()


FOOTER = "↑ 10 ↓ 2000 tokens · 0.0s\n"
CONTROL = "bell\x07 esc\x1b[31mred\x1b[0m cr\rback \x7f del \u200b zw"
FAILED = ToolCallFailed(call_id="c", name="lookup", error="日本語 " * 10, kind="exception")
CASES = {
    "brackets, emoji codes and a tab": (
        _Case(events=[Notice(message="see [bold]this[/bold]\tand :smile: now")]),
        "! see [bold]this[/bold] and :smile: now\n",
    ),
    "control codes": (
        _Case(
            events=[Notice(message="bell\x07 esc\x1b[31mred\x1b[0m cr\rback \x7f del \u200b zw")]
        ),
        "! bell\\x07 esc\\x1b[31mred\\x1b[0m cr back\n\\x7f del \\u200b zw\n",
    ),
    "a long notice": (
        _Case(events=[Notice(message="word " * 30, level="info")]),
        "● word word word word word word word \nword word word word word word word word \n"
        "word word word word word word word word \nword word word word word word word\n",
    ),
    "wide characters": (
        _Case(events=[FAILED]),
        "✗ tool call failed: lookup (日本語 \n日本語 日本語 日本語 日本語 日本語 \n"
        "日本語 日本語 日本語 日本語 )\n",
    ),
    "a combining accent": (
        _Case(events=[ToolCallBlocked(call_id="c", name="x", reason="cafe\u0301", by="hook")]),
        "⊘ tool call blocked by a hook: x (cafe\u0301)\n",
    ),
    "a long error": (
        _Case(error="boom [red]x[/red]\t" + "z" * 120),
        "✗ error: boom \n[red]x[/red]\\tzzzzzzzzzzzzzzzzzzzzzzzzzz\n"
        + "z" * 40
        + "\n"
        + "z" * 40
        + "\nzzzzzzzzzzzzzz\n",
    ),
    "an error with escapes": (
        _Case(error="a\x1b]0;title\x07b\nc"),
        "✗ error: a\\x1b]0;title\\x07b\\nc\n",
    ),
    "an incomplete reason": (
        _Case(incomplete="max_output_tokens\t[x]"),
        "! incomplete: max_output_tokens\\t[x]\n",
    ),
    "a refusal with a tab, a newline and a bell": (
        _Case(refusal="I can't\tdo that.\n[bold]No[/bold]\x07 " + "long " * 25),
        "✗ refused: I can't      do that.\n[bold]No[/bold]\\x07 long long long long \n"
        "long long long long long long long long \nlong long long long long long long long \n"
        "long long long long long \n",
    ),
    "interrupted": (_Case(interrupted=True), "■ interrupted\n"),
}


@pytest.mark.parametrize(("case", "expected"), CASES.values(), ids=list(CASES))
def test_hostile_and_long_lines_keep_their_bytes(case: _Case, expected: str) -> None:
    out, err = _stderr(case, 40)
    assert out == "Hello.\n"
    assert err == expected + FOOTER


def test_the_ascii_footer_and_a_wide_terminal() -> None:
    _, err = _stderr(CASES["a long error"][0], 100, ascii=True)
    assert err == (
        "x error: boom \n[red]x[/red]\\t" + "z" * 86 + "\n" + "z" * 34 + "\n"
        "in 10 / out 2000 tokens - 0.0s\n"
    )


def test_an_answer_of_text_and_notes_imports_no_rich() -> None:
    """The renderer on its own (a fresh interpreter): text, a notice, the status notes and the
    footer need no rich module; a tool-call line does."""
    script = textwrap.dedent(
        """
        import io, sys
        from forge_cli.protocol.content import OutputText
        from forge_cli.protocol.items import FunctionCall, Message
        from forge_cli.protocol.loop_events import Notice
        from forge_cli.protocol.response import Response, Usage
        from forge_cli.render import make_renderer

        def rich_loaded():
            return sorted(m for m in sys.modules if m.split(".")[0] == "rich")

        message = Message(id="m", status="completed", content=[OutputText(text="Hi [x].")])
        answer = Response(id="r", status="incomplete", output=[message],
                          usage=Usage(input_tokens=1, output_tokens=2),
                          incomplete_details={"reason": "max_output_tokens"})
        for mode in ("plain", "json", "jsonl"):
            out, err = io.StringIO(), io.StringIO()
            renderer = make_renderer(mode, stdout=out, stderr=err)
            renderer.on_snapshot(answer)
            renderer.on_event(Notice(message="a [notice]"))
            renderer.finish(answer, interrupted=True, error="it broke")
            assert out.getvalue() and (mode != "plain" or "tokens" in err.getvalue())
        print(rich_loaded())
        call = FunctionCall(id="f", call_id="c", name="lookup", arguments="{}", status="completed")
        renderer = make_renderer("plain", stdout=io.StringIO(), stderr=err)
        renderer.finish(Response(id="r", status="completed", output=[call]))
        assert "lookup" in err.getvalue()
        print("rich.console" in rich_loaded())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "True"]
