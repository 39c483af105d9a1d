"""Blocks of an answer are one blank line apart in the rich view, whatever follows a paragraph:
rich draws an empty line before a list, a quote or a table of its own, which the layout's blank
line between blocks doubled ("Steps:" then two blank lines then the list)."""

from __future__ import annotations

import io

import pytest
from tests_render_helpers import answer_response

from forge_cli.render import RichRenderer
from forge_cli.render.console import make_console


def _screen(text: str, width: int = 60) -> list[str]:
    out = io.StringIO()
    console = make_console(out, color=False, width=width, force_terminal=False)
    renderer = RichRenderer(console)
    response = answer_response(text)
    renderer.on_snapshot(response)
    renderer.finish(response)
    return [line.rstrip() for line in out.getvalue().splitlines()]


@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        ("Steps:\n\n- one\n- two\n\nDone.", "Steps:", "• one"),
        ("Steps:\n\n1. one\n2. two\n\nDone.", "Steps:", "1 one"),
        ("From **sleep.md**:\n\n> Use time.sleep(seconds).\n\nDone.", "From sleep.md:", "Use time"),
        ("Table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDone.", "Table:", "a"),
        ("Above.\n\n---\n\nBelow.", "Above.", "-----"),
    ],
)
def test_one_blank_line_between_blocks(text: str, first: str, second: str) -> None:
    lines = _screen(text)
    top = next(i for i, line in enumerate(lines) if line.strip().startswith(first))
    below = next(i for i, line in enumerate(lines) if i > top and line.strip())
    assert below == top + 2, lines
    assert second in lines[below], lines
    done = next(i for i, line in enumerate(lines) if line.strip() in {"Done.", "Below."})
    assert lines[done - 1] == "", lines
    assert lines[done - 2].strip(), lines


def test_code_block_padding_kept() -> None:
    """A code block's own padding lines (spaces on a background) are not blank lines to trim."""
    lines = _screen("Run:\n\n```python\nx = 1\n```\n\nDone.")
    top = lines.index("Run:")
    assert lines[top + 1] == ""
    assert "x = 1" in lines[top + 3], lines
