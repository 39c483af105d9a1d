"""Tables for the direct Markdown renderer: what rich's Markdown table draws, cell for cell.

rich's Markdown draws a table as ``Table(box=SIMPLE, pad_edge=False, show_edge=True,
collapse_padding=True)`` with the header cells in ``markdown.table.header``. This draws the same
cells when every cell fits on one line at its column's natural width; a table that would have
to shrink its columns (or a terminal without Unicode box characters) raises
:class:`~forge_cli.render.markdown.text.Unsupported` and rich draws it.
"""

from __future__ import annotations

from rich.box import SIMPLE
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style

from forge_cli.render.markdown.text import Block, Line, Span, Unsupported, segments, single_cells

__all__ = ["ALIGN", "Cell", "TableBlock"]

ALIGN = {"text-align:right": "right", "text-align:center": "center", "text-align:left": "left"}


class Cell:
    """One cell: its text, style spans and justification."""

    __slots__ = ("justify", "plain", "spans")

    def __init__(self, plain: str, spans: list[Span], justify: str) -> None:
        self.plain = plain
        self.spans = spans
        self.justify = justify


class TableBlock(Block):
    """A table as rich's Markdown draws it (``Table(box=SIMPLE, pad_edge=False,
    show_edge=True, collapse_padding=True)``), when every cell fits on one line at its natural
    width; a table that has to shrink its columns is left to rich."""

    __slots__ = ("border", "header", "header_style", "rows")

    def __init__(self, border: Style, header_style: Style) -> None:
        self.header: list[Cell] = []
        self.rows: list[list[Cell]] = []
        self.border = border
        self.header_style = header_style

    def has_children(self) -> bool:
        return True

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        if options.ascii_only or options.legacy_windows or not self.header:
            raise Unsupported("table box")
        count = len(self.header)
        rows = [self.header, *(row[:count] + [Cell("", [], "default")] * (count - len(row))
                               for row in self.rows)]  # fmt: skip
        # Cell padding (0, 1) collapsed, no padding at the edges: one space right of every cell
        # but the last column's.
        pads = [1] * (count - 1) + [0]
        widths = []
        for column, pad in enumerate(pads):
            texts = [row[column].plain for row in rows]
            if not single_cells("".join(texts)):
                raise Unsupported("cells")
            natural = max(len(text) for text in texts)
            widths.append((natural + pad if natural else pad) or 1)
        if sum(widths) > width - 2 - (count - 1):
            raise Unsupported("table too wide")
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


def _justified(cell: Cell, width: int) -> tuple[str, int, int]:
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


def _body_cell(cell: Cell, width: int) -> Line:
    text, left, right = _justified(cell, width)
    return segments(text, 0, cell.spans, [0], left, right, None)


def _header_cell(cell: Cell, width: int, row: Style, header: Style) -> Line:
    """A heading: the cell's spans, then ``markdown.table.header`` over all of it, then the
    header row's style (``table.header``) under every cell."""
    text, left, right = _justified(cell, width)
    spans = [(start, end, style + header) for start, end, style in cell.spans]
    out: Line = []
    for segment_text, style, _ in segments(text, 0, spans, [0], 0, 0, header):
        out.append(Segment(segment_text, row + style))
    pad_left = [Segment(" " * left, row)] if left else []
    pad_right = [Segment(" " * right, row)] if right else []
    return [*pad_left, *out, *pad_right]
