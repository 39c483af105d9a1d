"""Primitives of the direct Markdown renderer: rich's word wrap and segments, cell for cell.

``wrap_text`` is ``Text.wrap`` (justify left or center, overflow fold) followed by
``Text.render`` for text whose characters are all printable and one cell wide: the same lines,
the same characters and the same style in every cell. Anything it cannot reproduce exactly (a
word longer than the line, which rich folds; tabs; wide characters) raises :class:`Unsupported`,
and the caller lets rich draw the block (ADR-0016).
"""

from __future__ import annotations

import re
from itertools import pairwise

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style

__all__ = [
    "MIN_WIDTH",
    "Block",
    "Line",
    "Span",
    "Unsupported",
    "segments",
    "single_cells",
    "wrap_text",
]

Line = list[Segment]
Span = tuple[int, int, Style]
"""``(start, end, style)`` over a plain text; spans are ordered and disjoint."""

MIN_WIDTH = 8
"""Narrower than this (deep nesting on a small terminal), rich draws the block."""

_WORD = re.compile(r"\s*\S+\s*")


class Unsupported(Exception):
    """The block holds something this renderer does not draw: rich draws it."""


class Block:
    """One top-level or nested Markdown block, drawn at a width."""

    def has_children(self) -> bool:
        """Whether drawing this block closes elements nested in it first."""
        return False

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        raise NotImplementedError


def single_cells(text: str) -> bool:
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
            raise Unsupported("fold")
        elif offset and start:
            breaks.append(start)
            offset = end - start
    return breaks


def wrap_text(
    plain: str, spans: list[Span], width: int, center: bool, gap: Style | None = None
) -> list[Line]:
    """``Text.wrap`` with justify left (or center) and overflow fold, then ``Text.render``.

    Cells outside every span (and the padding) get ``gap``: the style of the ``Text`` itself."""
    if not single_cells(plain.replace("\n", "")):
        raise Unsupported("cells")
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
            out.append(segments(line, base + start, spans, cursor, left, right, gap))
        base += len(hard) + 1
    return out


def segments(
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
