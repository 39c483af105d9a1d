"""The direct Markdown renderer draws exactly the cells rich's ``Markdown`` draws.

Each document is drawn twice on the same console -- by ``BlockMarkdown`` (direct renderer) and by
rich's own ``Markdown.__rich_console__`` (the fallback) -- and the lines are compared cell by cell
(character and style), with colour on, at several widths. Documents the direct renderer covers
must really take the direct path (``render_blocks`` is not ``None``), so the comparison is not
rich against itself.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style

from forge_cli.render.items.message import PROSE_WIDTH, BlockMarkdown, markdown_block
from forge_cli.render.markdown.direct import render_blocks

WIDTHS = [12, 40, 100, 200]

Cells = list[list[tuple[str, Style | None]]]


class _RichOnly:
    """Draws a ``BlockMarkdown`` with rich's Markdown only (the reference)."""

    def __init__(self, block: BlockMarkdown) -> None:
        self.block = block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width > PROSE_WIDTH:
            options = options.update(width=PROSE_WIDTH)
        yield from self.block.rich_markdown().__rich_console__(console, options)


def _console(width: int, color: bool = True) -> Console:
    return Console(
        file=io.StringIO(),
        width=width,
        height=40,
        force_terminal=True,
        color_system="truecolor" if color else None,
        legacy_windows=False,
    )


def _cells(console: Console, renderable: object) -> Cells:
    lines = console.render_lines(renderable, console.options, pad=False)  # type: ignore[arg-type]
    out: Cells = []
    for line in lines:
        cells: list[tuple[str, Style | None]] = []
        for text, style, control in line:
            assert not control
            cells.extend((char, style or None) for char in text)
        out.append(cells)
    return out


def _check(markup: str, width: int, *, direct: bool = True) -> None:
    console = _console(width)
    block = BlockMarkdown(markup)
    if direct:
        style = console.get_style("none", default="none")
        options = console.options.update(width=min(width, PROSE_WIDTH))
        assert render_blocks(block.parsed, console, options, style) is not None, markup
    assert _cells(console, block) == _cells(console, _RichOnly(block)), markup


DOCUMENTS = [
    "Hello world.",
    "A **bold** and *italic* and ~~struck~~ and `code` word, then ***both*** at once.",
    "Nested **bold with *italic* inside** and `a` `b`.",
    "Line one  \nline two after a hard break\\\nand three.",
    "Soft\nbreaks\njoin lines with spaces.",
    "A [link](https://example.com/a?b=c) and <https://auto.example/x> and [**bold** link](u).",
    "Angle <API-KEY> and std::vector<int> and <b>tag</b> stay as text; 1 < 2 > 0 & more.",
    "Citations [1] and [2][3] markers stay.",
    "word " * 80,
    "averyveryverylongwordunder40col " * 5,
    "   leading spaces are stripped by markdown",
    "# Title one\n\nSome text.",
    "## Second **level** heading",
    "### Third\n#### Fourth\n##### Fifth\n###### Sixth",
    "Setext title\n============\n\nand\n---",
    "# " + "centered heading words " * 8,
    "- one\n- two with **bold**\n- three " + "long " * 30,
    "1. first\n2. second\n3. third",
    "7. seven\n8. eight\n9. nine\n10. ten",
    "- loose\n\n- list\n\n  with a second paragraph",
    "- outer\n  - inner one\n  - inner two\n    1. deep\n- back",
    "> a quote with *style*\n> over lines " + "more " * 30,
    "> quote\n>\n> - with a list\n> - of two\n>\n> > nested quote",
    "```python\ndef f(x):\n    return x * 2\n```",
    "```\nno language\n```",
    "```unknownlang extra\nsome code\n```",
    "    indented code\n    block",
    "- item with code:\n\n  ```js\n  let a = 1;\n  ```",
    "Text then\n```bash\necho hi\n```\nafter.",
    "Emoji-free résumé naïve Ελληνικά кириллица text wraps " * 4,
    "Trailing hard break at end  ",
    "a\\*escaped\\* and &amp; &lt;entities&gt; &copy;",
    "* star list\n+ plus list",
    "- [ ] task\n- [x] done",
    "**unclosed bold and _unclosed em",
    "Heading then list\n# H\n- a\n- b",
    "```python\nx = " + " + ".join(["value"] * 30) + "  # wraps\n```",
    "```\n\tindented with a tab\n```",
    '```json\n{"a": [1, 2, {"b": null}]}\n```',
    '```rust\nfn main() { println!("hi"); }\n```',
    "```\n\n\nblank lines around\n\n```",
    "```sh\n```",
    "```" + "x" * 100 + "\nan unknown, very long language name\n```",
    "> ```py\n> quoted = True\n> ```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "| left | center | right |\n|:--|:-:|--:|\n| **x** | `y` | 3.5 |\n| longer cell text | z |  |",
    "| **bold head** | *it* `c` |\n|---|:-:|\n| [l](u) | ~~s~~ |\n| only one |",
    "| h |\n|---|",
    "| a | b |\n|--|--|\n| 1 | 2 | 3 |",
    "| | x |\n|:-:|-:|\n| y | |",
    "- in a list:\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |",
    "Text before\n\n| a |\n|---|\n| 1 |",
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("markup", DOCUMENTS)
def test_same_cells_as_rich(markup: str, width: int) -> None:
    # At 12 columns long words (URLs) are folded, which rich does (the direct path steps aside).
    _check(markup, width, direct=width >= 40)


FALLBACK = [
    "| " + " | ".join(["a wide column of words"] * 6) + " |\n" + "|---" * 6 + "|",
    "text\n\n---\n\nafter rule",
    "![alt](http://img.example/x.png)",
    "tab\there",
    "wide 漢字 characters",
    "x" * 150,
    "#",
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("markup", FALLBACK)
def test_unsupported_falls_back_to_rich(markup: str, width: int) -> None:
    console = _console(width)
    block = BlockMarkdown(markup)
    options = console.options.update(width=min(width, PROSE_WIDTH))
    style = console.get_style("none", default="none")
    if markup.startswith(("text\n", "![", "#")):
        assert render_blocks(block.parsed, console, options, style) is None
    assert _cells(console, block) == _cells(console, _RichOnly(block))


def test_no_color_and_sanitized() -> None:
    """Without colour the direct path draws the same text; escapes are shown, never sent."""
    markup = markdown_block("A **b** \x1b[2J and \u202e tricks")
    console = _console(60, color=False)
    console.print(markup)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[2J" not in out
    assert "\\x1b[2J" in out
    assert _cells(console, markup) == _cells(console, _RichOnly(markup))


_WORDS = st.sampled_from(
    [
        "word",
        "a",
        "longerword",
        "**bold**",
        "*em*",
        "`code`",
        "~~s~~",
        "[l](u)",
        "1.",
        "-",
        "#",
        ">",
        "x_y",
        "_u_",
        "**",
        "`",
        "[",
        "](",
        "\\",
        "&amp;",
        "<x>",
        "é",
        "ΩΩ",
        "  ",
        "\n",
        "\n\n",
        "\n- ",
        "\n1. ",
        "\n> ",
        "\n## ",
        "\n```py\n",
        "\n    ",
        "  \n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=40).map(" ".join), st.sampled_from(WIDTHS))
def test_generated_documents(markup: str, width: int) -> None:
    """Any mix of the supported syntax: same cells (direct or fallback, whichever is taken)."""
    _check(markup, width, direct=False)


def test_generated_documents_mostly_direct() -> None:
    """The generated mixes above do exercise the direct path (not only the fallback)."""
    console = _console(100)
    direct = 0
    samples = [
        "word **bold** *em* `code` [l](u) " * 3,
        "- a\n- **b**\n\n> q *e*",
        "## h\n\ntext ~~s~~ é ΩΩ",
        "1. x\n2. y\n\n```py\nz = 1\n```",
    ]
    for markup in samples:
        block = BlockMarkdown(markup)
        style = console.get_style("none", default="none")
        if render_blocks(block.parsed, console, console.options, style) is not None:
            direct += 1
    assert direct == len(samples)


def test_lines_end_with_newlines() -> None:
    """Every line the direct path yields ends with a newline segment, as rich's do."""
    console = _console(40)
    segments = list(console.render(BlockMarkdown("a\n\n- b\n- c"), console.options))
    assert segments[-1] == Segment.line()
    assert sum(1 for s in segments if s.text == "\n") == 4
