"""A direct renderer for the common Markdown blocks: the cells rich's ``Markdown`` would draw.

rich's ``Markdown`` builds an element tree per document, a ``Text`` per paragraph, wraps it with
``Text.wrap`` and renders it through several layers of generators. That machinery is most of the
cost of streaming a long answer (each settled block is printed once, but there are thousands of
them). This module walks markdown-it's tokens itself and produces the lines of segments directly:
the same characters with the same style in every cell as rich 15's ``Markdown`` (checked by
``tests/render/test_direct_markdown.py`` against rich on many documents and widths). Segment
boundaries may differ (a run of equally styled cells can be one segment here and two in rich),
which changes no cell on the screen.

Covered: paragraphs (text, strong, emphasis, strikethrough, inline code, links shown as
``text (url)``, soft and hard breaks), headings, bullet and ordered lists (nested, tight or
loose), block quotes, fenced or indented code (``direct_code``) and tables whose cells fit
(``direct_table``). Anything else -- rules, images, a table that must shrink, text that is not
single-cell printable (tabs, wide characters) or a word longer than the line -- makes
:func:`render_blocks` return ``None`` and the caller lets rich draw the whole block (ADR-0016).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions
from rich.control import strip_control_codes
from rich.segment import Segment
from rich.style import Style

from forge_cli.render.markdown.code import CodeBlock
from forge_cli.render.markdown.table import ALIGN, Cell, TableBlock
from forge_cli.render.markdown.text import MIN_WIDTH, Block, Line, Span, Unsupported, wrap_text

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["render_blocks"]

_INLINE_TAGS = {
    "strong_open": "markdown.strong",
    "em_open": "markdown.em",
    "s_open": "markdown.s",
}
_INLINE_CLOSE = {"strong_close", "em_close", "s_close"}
_H1_CENTER = "h1"


class _Styles:
    """Theme styles by name for one console (``console.get_style`` per name, once)."""

    __slots__ = ("_cache", "console")

    def __init__(self, console: Console) -> None:
        self.console = console
        self._cache: dict[str, Style] = {}

    def __getitem__(self, name: str) -> Style:
        style = self._cache.get(name)
        if style is None:
            style = self.console.get_style(name, default="none")
            self._cache[name] = style
        return style


def render_blocks(
    tokens: Sequence[Token], console: Console, options: ConsoleOptions, style: Style
) -> list[Line] | None:
    """The lines ``Markdown(tokens)`` draws at ``options.max_width``, or ``None`` if unsupported.

    ``style`` is the Markdown's own style (the bottom of its style stack). Top-level blocks are
    separated by one empty line, as rich does.
    """
    if options.no_wrap or options.overflow not in (None, "fold"):
        return None
    styles = _Styles(console)
    try:
        blocks, end = _blocks(tokens, 0, None, styles, style)
        if end != len(tokens):
            return None
        out: list[Line] = []
        for index, block in enumerate(blocks):
            if index or block.has_children():
                # rich puts a blank line before a block once any element was closed -- even one
                # nested in this block (so a list or quote that starts the text gets one too).
                out.append([])
            out.extend(block.lines(console, options.max_width, options))
        return out
    except Unsupported:
        return None


# --- blocks -----------------------------------------------------------------------------------


class _TextBlock(Block):
    """A paragraph or heading: styled plain text, wrapped and justified."""

    __slots__ = ("center", "plain", "spans")

    def __init__(self, plain: str, spans: list[Span], center: bool) -> None:
        self.plain = plain
        self.spans = spans
        self.center = center

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        return wrap_text(self.plain, self.spans, width, self.center)


class _ListBlock(Block):
    __slots__ = ("bullet_style", "items", "number_style", "ordered", "start")

    def __init__(self, ordered: bool, start: int, styles: _Styles) -> None:
        self.ordered = ordered
        self.start = start
        self.items: list[_Container] = []
        self.bullet_style = styles["markdown.item.bullet"]
        self.number_style = styles["markdown.item.number"]

    def has_children(self) -> bool:
        return bool(self.items)

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        out: list[Line] = []
        if not self.ordered:
            bullet = Segment(" • ", self.bullet_style)
            padding = Segment("   ", self.bullet_style)
            for item in self.items:
                for i, line in enumerate(item.inner_lines(console, width - 3, options)):
                    out.append([bullet if i == 0 else padding, *line])
            return out
        last_number = self.start + len(self.items)
        number_width = len(str(last_number)) + 2
        pad = Segment(" " * number_width, self.number_style)
        for index, item in enumerate(self.items):
            numeral = Segment(
                f"{self.start + index}".rjust(number_width - 1) + " ", self.number_style
            )
            for i, line in enumerate(item.inner_lines(console, width - number_width, options)):
                out.append([numeral if i == 0 else pad, *line])
        return out


class _Container(Block):
    """A list item or block quote: child blocks drawn back to back, styled and padded."""

    __slots__ = ("children", "quote", "style")

    def __init__(self, style: Style, quote: bool) -> None:
        self.style = style
        self.quote = quote
        self.children: list[Block] = []

    def has_children(self) -> bool:
        return bool(self.children)

    def inner_lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        if width < MIN_WIDTH:
            raise Unsupported
        style = self.style
        out: list[Line] = []
        for child in self.children:
            for line in child.lines(console, width, options):
                if style:
                    line = [Segment(text, style + seg_style) for text, seg_style, _ in line]
                out.append(Segment.adjust_line_length(line, width, style=style, pad=True))
        return out

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        # Only block quotes are drawn as blocks; list items are drawn by their list.
        padding = Segment("▌ ", self.style)
        return [[padding, *line] for line in self.inner_lines(console, width - 4, options)]


# --- tokens to blocks ---------------------------------------------------------------------------


def _blocks(
    tokens: Sequence[Token], i: int, close: str | None, styles: _Styles, top: Style
) -> tuple[list[Block], int]:
    """Blocks from ``tokens[i]`` up to the token of type ``close`` (consumed), or the end."""
    out: list[Block] = []
    count = len(tokens)
    while i < count:
        token = tokens[i]
        kind = token.type
        if kind == close:
            return out, i + 1
        if kind == "paragraph_open":
            inline = _inline_token(tokens, i + 1, "paragraph_close")
            style = top + styles["markdown.paragraph"]
            plain, spans = _inline_text(inline, styles, style)
            out.append(_TextBlock(plain, spans, center=False))
            i += 3
        elif kind == "heading_open":
            inline = _inline_token(tokens, i + 1, "heading_close")
            style = top + styles[f"markdown.{token.tag}"]
            plain, spans = _inline_text(inline, styles, style)
            out.append(_TextBlock(plain, spans, center=token.tag == _H1_CENTER))
            i += 3
        elif kind in ("bullet_list_open", "ordered_list_open"):
            block, i = _list(tokens, i, styles, top)
            out.append(block)
        elif kind == "blockquote_open":
            style = top + styles["markdown.block_quote"]
            quote = _Container(style, quote=True)
            quote.children, i = _blocks(tokens, i + 1, "blockquote_close", styles, style)
            out.append(quote)
        elif kind == "table_open":
            table, i = _table(tokens, i + 1, styles, top)
            out.append(table)
        elif kind in ("fence", "code_block"):
            lexer = (token.info or "").partition(" ")[0] or "text"
            out.append(CodeBlock(strip_control_codes(token.content).rstrip(), lexer))
            i += 1
        else:
            raise Unsupported(kind)
    if close is not None:
        raise Unsupported(close)
    return out, i


def _inline_token(tokens: Sequence[Token], i: int, close: str) -> Token:
    if i + 1 >= len(tokens) or tokens[i + 1].type != close:
        raise Unsupported(close)
    inline = tokens[i]
    if inline.type != "inline" or not inline.children:
        raise Unsupported("empty inline")  # rich draws an empty inline with a stray blank line
    return inline


def _list(tokens: Sequence[Token], i: int, styles: _Styles, top: Style) -> tuple[_ListBlock, int]:
    opening = tokens[i]
    ordered = opening.type == "ordered_list_open"
    close = "ordered_list_close" if ordered else "bullet_list_close"
    block = _ListBlock(ordered, int(opening.attrs.get("start", 1)), styles)
    item_style = top + styles["markdown.item"]
    i += 1
    while i < len(tokens):
        kind = tokens[i].type
        if kind == close:
            return block, i + 1
        if kind != "list_item_open":
            raise Unsupported(kind)
        item = _Container(item_style, quote=False)
        item.children, i = _blocks(tokens, i + 1, "list_item_close", styles, item_style)
        block.items.append(item)
    raise Unsupported(close)


def _table(tokens: Sequence[Token], i: int, styles: _Styles, top: Style) -> tuple[TableBlock, int]:
    table = TableBlock(styles["markdown.table.border"], styles["markdown.table.header"])
    row: list[Cell] | None = None
    in_head = False
    while i < len(tokens):
        token = tokens[i]
        kind = token.type
        if kind == "table_close":
            return table, i + 1
        if kind in ("thead_open", "thead_close"):
            in_head = kind == "thead_open"
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            if in_head:
                table.header = row
            else:
                table.rows.append(row)
            row = None
        elif kind in ("th_open", "td_open") and row is not None:
            inline = tokens[i + 1]
            if inline.type != "inline" or tokens[i + 2].type not in ("th_close", "td_close"):
                raise Unsupported("cell")
            justify = ALIGN.get(str(token.attrs.get("style")), "default")
            plain, spans = _inline_text(inline, styles, top) if inline.children else ("", [])
            row.append(Cell(plain, spans, justify))
            i += 2
        elif kind not in ("tbody_open", "tbody_close"):
            raise Unsupported(kind)
        i += 1
    raise Unsupported("table_close")


def _inline_text(inline: Token, styles: _Styles, base: Style) -> tuple[str, list[Span]]:
    """The plain text and style spans rich's Markdown builds for one inline token."""
    parts: list[str] = []
    spans: list[Span] = []
    pos = 0
    stack = [base]
    link: list[str] | None = None
    href = ""

    def add(text: str, style: Style) -> None:
        nonlocal pos
        text = strip_control_codes(text)
        if link is not None:
            link.append(text)
            return
        if style and text:
            spans.append((pos, pos + len(text), style))
        parts.append(text)
        pos += len(text)

    for token in inline.children or ():
        kind = token.type
        if kind == "text":
            add(token.content, stack[-1])
        elif kind == "softbreak":
            add(" ", stack[-1])
        elif kind == "hardbreak":
            add("\n", stack[-1])
        elif kind == "code_inline":
            if token.content:
                add(token.content, stack[-1] + styles["markdown.code"])
        elif kind in _INLINE_TAGS:
            stack.append(stack[-1] + styles[_INLINE_TAGS[kind]])
        elif kind in _INLINE_CLOSE:
            if len(stack) == 1:
                raise Unsupported(kind)
            stack.pop()
        elif kind == "link_open":
            if link is not None:
                raise Unsupported("nested link")
            link = []
            href = str(token.attrs.get("href", "#"))
        elif kind == "link_close":
            if link is None:
                raise Unsupported(kind)
            label, link = "".join(link), None
            current = stack[-1]
            add(label, current + styles["markdown.link"])
            add(" (", current)
            add(href, current + styles["markdown.link_url"])
            add(")", current)
        else:
            raise Unsupported(kind)
    if link is not None:
        raise Unsupported("open link")
    return "".join(parts), spans
