"""Renderer for assistant messages: Markdown blocks with ``[n]`` citation markers.

The text is split into blocks exactly as the streaming renderer commits them (``blocks.py``),
and each block is rendered as its own Markdown document, so a one-shot render of the final
snapshot equals what streaming printed. Markdown links are shown as text (no OSC 8 hyperlinks
from untrusted URLs). Text that looks like HTML is shown as text: nothing the model wrote vanishes.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from forge_cli.protocol.citations import cite_message
from forge_cli.protocol.items import Message
from forge_cli.redact import redact
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import safe
from forge_cli.render.markdown.code import CODE_THEME
from forge_cli.render.markdown.direct import render_blocks
from forge_cli.sanitize import sanitize

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.markdown import Markdown

__all__ = [
    "PROSE_WIDTH",
    "BlockMarkdown",
    "markdown_block",
    "refusal_line",
    "render_message",
    "warm_up_parser",
]

PROSE_WIDTH = 100
"""Answers wrap at this many columns at most: lines much longer are hard to read on a wide
terminal (tool lines and tables of sources still use the full width)."""


@cache
def _parser() -> MarkdownIt:
    """The one markdown-it parser (imported and built on first use: plain output needs none)."""
    from markdown_it import MarkdownIt

    # HTML off: markdown-it would parse `<API-KEY>`, `std::vector<int>` or `<tag>` as inline HTML,
    # which rich drops, so answers would lose text. With it off they are shown as written.
    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")


def warm_up_parser() -> None:
    """Import and build the Markdown parser now (the rich view does this while the request is
    in flight, so the first token's paint does not wait for it)."""
    _parser()


class BlockMarkdown:
    """One block of answer text as Markdown, drawn as rich's ``Markdown`` draws it.

    Parsed once with a shared parser (``Markdown.__init__`` builds a new markdown-it parser for
    every document: most of the cost of a small block). Paragraphs, headings, lists, quotes,
    code and tables that fit are drawn by :mod:`forge_cli.render.markdown.direct` (the same
    cells as rich's ``Markdown``, at a fraction of the cost); anything else by rich's
    ``Markdown`` itself, imported then (it imports pygments: ~80 ms this keeps off the path to
    the first painted token). Links render as text.

    With ``trim``, the empty lines rich puts before a list, a quote or a table (and after a
    rule) are left out: the caller's layout already separates blocks by one blank line, and a
    block drawn on its own would otherwise show two above a list that follows a paragraph.
    """

    __slots__ = ("markup", "parsed", "trim")

    def __init__(self, markup: str, *, trim: bool = False) -> None:
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.trim = trim

    def rich_markdown(self) -> Markdown:
        """The rich ``Markdown`` of this block (same tokens and settings; drawn by rich only)."""
        from rich.markdown import Markdown

        markdown = Markdown.__new__(Markdown)
        markdown.markup = self.markup
        markdown.parsed = self.parsed
        markdown.code_theme = CODE_THEME
        markdown.justify = None
        markdown.style = "none"
        markdown.hyperlinks = False
        markdown.inline_code_lexer = None
        markdown.inline_code_theme = CODE_THEME
        return markdown

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width > PROSE_WIDTH:
            options = options.update(width=PROSE_WIDTH)
        style = console.get_style("none", default="none")
        lines = render_blocks(self.parsed, console, options, style)
        if lines is None:  # something the direct renderer does not draw: rich draws it all
            if not self.trim:
                yield from self.rich_markdown().__rich_console__(console, options)
                return
            lines = console.render_lines(self.rich_markdown(), options, pad=False)
        if self.trim:
            lines = _without_outer_empty_lines(lines)
        new_line = Segment.line()
        for line in lines:
            yield from line
            yield new_line


def _blank(line: list[Segment]) -> bool:
    """Nothing shows on ``line``: only spaces, none on a background (a code block's padding is
    not blank)."""
    return all(
        not segment.text.strip() and (segment.style is None or segment.style.bgcolor is None)
        for segment in line
    )


def _without_outer_empty_lines(lines: list[list[Segment]]) -> list[list[Segment]]:
    """``lines`` less the blank ones at the start and the end."""
    start, end = 0, len(lines)
    while start < end and _blank(lines[start]):
        start += 1
    while end > start and _blank(lines[end - 1]):
        end -= 1
    return lines[start:end]


def markdown_block(text: str) -> BlockMarkdown:
    """One block of answer text, sanitised, as Markdown (outer empty lines trimmed)."""
    return BlockMarkdown(sanitize(redact(text)), trim=True)


def refusal_line(refusal: str, ctx: RenderContext) -> Text:
    """The model declined: shown in red."""
    line = Text(f"{ctx.glyphs.failed} refused: ", style="red bold")
    line.append(Text(safe(refusal), style="red"))
    return line


def render_message(item: Message, key: str, ctx: RenderContext) -> list[RenderableType]:
    """Every block of a message (numbering its citations), then its refusal if any."""
    numbering = ctx.numbering if ctx.final else ctx.numbering.copy()
    out: list[RenderableType] = [markdown_block(block) for block in cite_message(item, numbering)]
    if item.refusal:
        out.append(refusal_line(item.refusal, ctx))
    return out
