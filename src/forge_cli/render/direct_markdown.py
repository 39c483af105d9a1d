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
loose), block quotes, and fenced or indented code (drawn by rich's ``Syntax`` exactly as
``Markdown`` does, with a cached lexer and theme). Anything else -- tables, rules, images, text
that is not single-cell printable (tabs, wide characters) or a word longer than the line -- makes
:func:`render_blocks` return ``None`` and the caller lets rich draw the whole block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import pairwise
from typing import Any

from markdown_it.token import Token
from rich.box import SIMPLE
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.control import strip_control_codes
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax, SyntaxTheme

__all__ = ["render_blocks"]

Line = list[Segment]
Span = tuple[int, int, Style]

CODE_THEME = "monokai"
_WORD = re.compile(r"\s*\S+\s*")
_MIN_WIDTH = 8
"""Narrower than this (deep nesting on a small terminal), rich draws the block."""

_INLINE_TAGS = {
    "strong_open": "markdown.strong",
    "em_open": "markdown.em",
    "s_open": "markdown.s",
}
_INLINE_CLOSE = {"strong_close", "em_close", "s_close"}
_H1_CENTER = "h1"


class _Unsupported(Exception):
    """The block holds something this renderer does not draw: rich draws it."""


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
    except _Unsupported:
        return None


# --- block structure ----------------------------------------------------------------------------


class _Block:
    def has_children(self) -> bool:
        """Whether drawing this block closes elements nested in it first."""
        return False

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        raise NotImplementedError


class _TextBlock(_Block):
    """A paragraph or heading: styled plain text, wrapped and justified."""

    __slots__ = ("center", "plain", "spans")

    def __init__(self, plain: str, spans: list[Span], center: bool) -> None:
        self.plain = plain
        self.spans = spans
        self.center = center

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        return _wrap_text(self.plain, self.spans, width, self.center)


class _ListBlock(_Block):
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


class _Container(_Block):
    """A list item or block quote: child blocks drawn back to back, styled and padded."""

    __slots__ = ("children", "quote", "style")

    def __init__(self, style: Style, quote: bool) -> None:
        self.style = style
        self.quote = quote
        self.children: list[_Block] = []

    def has_children(self) -> bool:
        return bool(self.children)

    def inner_lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        if width < _MIN_WIDTH:
            raise _Unsupported
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


class _CodeBlock(_Block):
    """Fenced or indented code as rich's ``Syntax(code, lexer, theme=monokai, word_wrap=True,
    padding=1)`` draws it: highlighted lines wrapped at the width less the padding, on the
    theme's background, with a blank background line above and below."""

    __slots__ = ("code", "lexer")

    def __init__(self, code: str, lexer: str) -> None:
        self.code = code
        self.lexer = lexer

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        theme = _theme()
        base = theme.get_background_style() + Style()  # Syntax._get_base_style()
        if base.transparent_background or width < _MIN_WIDTH:
            raise _Unsupported("code")
        code = (self.code + "\n").expandtabs(4)
        plain: list[str] = []
        spans: list[Span] = []
        pos = 0
        combined: dict[Style, Style] = {}
        for token_type, content in _lexer(self.lexer).get_tokens(code):
            content = strip_control_codes(content)
            token_style = theme.get_style_for_token(token_type)
            if token_style and content:
                style = combined.get(token_style)
                if style is None:
                    style = combined[token_style] = base + token_style
                spans.append((pos, pos + len(content), style))
            plain.append(content)
            pos += len(content)
        text = "".join(plain)
        if text.endswith("\n"):
            text = text[:-1]
        inner = width - 2
        edge = Segment(" ", base)
        out: list[Line] = [[Segment(" " * width, base)]]
        # Syntax's render_lines, then Padding's, each put the base style under every cell.
        final: dict[Style | None, Style] = {}
        for line in _wrap_text(text, spans, inner, center=False, gap=base):
            styled = [edge]
            for segment_text, style, _ in line:
                cell_style = final.get(style)
                if cell_style is None:
                    cell_style = final[style] = base + (base + style)
                styled.append(Segment(segment_text, cell_style))
            styled.append(edge)  # lines are padded to ``inner`` already
            out.append(styled)
        out.append([Segment(" " * width, base)])
        return out


_ALIGN = {"text-align:right": "right", "text-align:center": "center", "text-align:left": "left"}


class _Cell:
    __slots__ = ("justify", "plain", "spans")

    def __init__(self, plain: str, spans: list[Span], justify: str) -> None:
        self.plain = plain
        self.spans = spans
        self.justify = justify


class _TableBlock(_Block):
    """A table as rich's Markdown draws it (``Table(box=SIMPLE, pad_edge=False,
    show_edge=True, collapse_padding=True)``), when every cell fits on one line at its natural
    width; a table that has to shrink its columns is left to rich."""

    __slots__ = ("border", "header", "header_style", "rows")

    def __init__(self, styles: _Styles) -> None:
        self.header: list[_Cell] = []
        self.rows: list[list[_Cell]] = []
        self.border = styles["markdown.table.border"]
        self.header_style = styles["markdown.table.header"]

    def has_children(self) -> bool:
        return True

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        if options.ascii_only or options.legacy_windows or not self.header:
            raise _Unsupported("table box")
        count = len(self.header)
        rows = [self.header, *(row[:count] + [_Cell("", [], "default")] * (count - len(row))
                               for row in self.rows)]  # fmt: skip
        # Cell padding (0, 1) collapsed, no padding at the edges: one space right of every cell
        # but the last column's.
        pads = [1] * (count - 1) + [0]
        widths = []
        for column, pad in enumerate(pads):
            texts = [row[column].plain for row in rows]
            if not _single_cells("".join(texts)):
                raise _Unsupported("cells")
            natural = max(len(text) for text in texts)
            widths.append((natural + pad if natural else pad) or 1)
        if sum(widths) > width - 2 - (count - 1):
            raise _Unsupported("table too wide")
        box = SIMPLE
        border = self.border
        header_cell = console.get_style("table.header")
        out: list[Line] = [[Segment(box.get_top(widths), border)]]
        for index, row in enumerate(rows):
            header = index == 0
            edge = Segment(" ", border)  # SIMPLE's verticals are spaces in the border style
            line: Line = [edge]
            for column, cell in enumerate(row):
                if column:
                    line.append(edge)
                inner = widths[column] - pads[column]
                if header:
                    line.extend(_header_cell(cell, inner, header_cell, self.header_style))
                else:
                    line.extend(_body_cell(cell, inner))
                if pads[column]:
                    line.append(Segment(" " * pads[column], header_cell if header else None))
            line.append(edge)
            out.append(line)
            if header:
                out.append([Segment(box.get_row(widths, "head", edge=True), border)])
        out.append([Segment(box.get_bottom(widths), border)])
        return out


def _justified(cell: _Cell, width: int) -> tuple[str, int, int]:
    """The cell's text and its left/right padding in ``width`` (``Text`` justify rules)."""
    text = cell.plain
    if cell.justify in ("center", "right"):
        text = text.rstrip()
    room = width - len(text)
    if cell.justify == "center":
        return text, room // 2, room - room // 2
    if cell.justify == "right":
        return text, room, 0
    return text, 0, room  # "left" pads in the text, "default" by render_lines: same cells


def _body_cell(cell: _Cell, width: int) -> Line:
    text, left, right = _justified(cell, width)
    return _segments(text, 0, cell.spans, [0], left, right, None)


def _header_cell(cell: _Cell, width: int, row: Style, header: Style) -> Line:
    """A heading: the cell's spans, then ``markdown.table.header`` over all of it, then the
    header row's style (``table.header``) under every cell."""
    text, left, right = _justified(cell, width)
    spans = [(start, end, style + header) for start, end, style in cell.spans]
    out: Line = []
    for segment_text, style, _ in _segments(text, 0, spans, [0], 0, 0, header):
        out.append(Segment(segment_text, row + style))
    pad_left = [Segment(" " * left, row)] if left else []
    pad_right = [Segment(" " * right, row)] if right else []
    return [*pad_left, *out, *pad_right]


@lru_cache(maxsize=64)
def _lexer(name: str) -> Any:  # a pygments Lexer (pygments ships no type information)
    """The lexer ``Syntax`` looks up by name (the plain-text one when unknown), built once:
    looking a lexer up costs more than highlighting a short block."""
    probe = Syntax("", name)
    return probe.lexer or probe.default_lexer


@cache
def _theme() -> SyntaxTheme:
    """One theme object, so its per-token style cache lives across blocks."""
    return Syntax.get_theme(CODE_THEME)


# --- tokens to blocks ---------------------------------------------------------------------------


def _blocks(
    tokens: Sequence[Token], i: int, close: str | None, styles: _Styles, top: Style
) -> tuple[list[_Block], int]:
    """Blocks from ``tokens[i]`` up to the token of type ``close`` (consumed), or the end."""
    out: list[_Block] = []
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
            out.append(_CodeBlock(strip_control_codes(token.content).rstrip(), lexer))
            i += 1
        else:
            raise _Unsupported(kind)
    if close is not None:
        raise _Unsupported(close)
    return out, i


def _inline_token(tokens: Sequence[Token], i: int, close: str) -> Token:
    if i + 1 >= len(tokens) or tokens[i + 1].type != close:
        raise _Unsupported(close)
    inline = tokens[i]
    if inline.type != "inline" or not inline.children:
        raise _Unsupported("empty inline")  # rich draws an empty inline with a stray blank line
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
            raise _Unsupported(kind)
        item = _Container(item_style, quote=False)
        item.children, i = _blocks(tokens, i + 1, "list_item_close", styles, item_style)
        block.items.append(item)
    raise _Unsupported(close)


def _table(tokens: Sequence[Token], i: int, styles: _Styles, top: Style) -> tuple[_TableBlock, int]:
    table = _TableBlock(styles)
    row: list[_Cell] | None = None
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
                raise _Unsupported("cell")
            justify = _ALIGN.get(str(token.attrs.get("style")), "default")
            plain, spans = _inline_text(inline, styles, top) if inline.children else ("", [])
            row.append(_Cell(plain, spans, justify))
            i += 2
        elif kind not in ("tbody_open", "tbody_close"):
            raise _Unsupported(kind)
        i += 1
    raise _Unsupported("table_close")


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
                raise _Unsupported(kind)
            stack.pop()
        elif kind == "link_open":
            if link is not None:
                raise _Unsupported("nested link")
            link = []
            href = str(token.attrs.get("href", "#"))
        elif kind == "link_close":
            if link is None:
                raise _Unsupported(kind)
            label, link = "".join(link), None
            current = stack[-1]
            add(label, current + styles["markdown.link"])
            add(" (", current)
            add(href, current + styles["markdown.link_url"])
            add(")", current)
        else:
            raise _Unsupported(kind)
    if link is not None:
        raise _Unsupported("open link")
    return "".join(parts), spans


# --- wrapping -----------------------------------------------------------------------------------


def _single_cells(text: str) -> bool:
    """Every character is printable and one cell wide (so cells equal characters)."""
    if not text.isprintable():
        return False
    return text.isascii() or all(cell_len(char) == 1 for char in set(text))


def _breaks(text: str, width: int) -> list[int]:
    """Where rich's word wrap breaks ``text`` (single-cell characters, no word wider than the
    line -- a wider word is folded by rich, which is left to rich)."""
    breaks: list[int] = []
    offset = 0
    for match in _WORD.finditer(text):
        start, end = match.span()
        word_length = len(match.group().rstrip())
        if width - offset >= word_length:
            offset += end - start
        elif word_length > width:
            raise _Unsupported("fold")
        elif offset and start:
            breaks.append(start)
            offset = end - start
    return breaks


def _wrap_text(
    plain: str, spans: list[Span], width: int, center: bool, gap: Style | None = None
) -> list[Line]:
    """``Text.wrap`` with justify left (or center) and overflow fold, then ``Text.render``.

    Cells outside every span (and the padding) get ``gap``: the style of the ``Text`` itself."""
    if not _single_cells(plain.replace("\n", "")):
        raise _Unsupported("cells")
    out: list[Line] = []
    base = 0
    cursor = [0]  # the first span that may still reach the next line
    for hard in plain.split("\n"):
        bounds = [0, *_breaks(hard, width), len(hard)]
        for start, end in pairwise(bounds):
            line = hard[start:end]
            if center:
                line = line.rstrip()
            elif len(line) > width:
                line = line[:width]  # only trailing spaces go: each word fits
            left = (width - len(line)) // 2 if center else 0
            right = width - len(line) - left
            out.append(_segments(line, base + start, spans, cursor, left, right, gap))
        base += len(hard) + 1
    return out


def _segments(
    line: str,
    offset: int,
    spans: list[Span],
    cursor: list[int],
    left: int,
    right: int,
    gap: Style | None,
) -> Line:
    """The segments of ``line`` (at ``offset`` in the text), padded by ``left``/``right`` spaces.

    ``spans`` are ordered and disjoint; ``cursor[0]`` is the first one not wholly before this
    line (lines come in order, so the whole text costs O(lines + spans))."""
    out: Line = []
    if left:
        out.append(Segment(" " * left, gap))
    end = offset + len(line)
    pos = offset
    index = cursor[0]
    count = len(spans)
    while index < count and spans[index][1] <= pos:
        index += 1
    cursor[0] = index
    while index < count:
        span_start, span_end, style = spans[index]
        index += 1
        if span_start >= end:
            break
        if span_start > pos:
            out.append(Segment(line[pos - offset : span_start - offset], gap))
            pos = span_start
        stop = min(span_end, end)
        out.append(Segment(line[pos - offset : stop - offset], style))
        pos = stop
    if pos < end:
        out.append(Segment(line[pos - offset :], gap))
    if right:
        out.append(Segment(" " * right, gap))
    return out
