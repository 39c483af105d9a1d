"""How slash-command output fits the terminal: one wrapper for every command.

A command returns its output as plain text or as *blocks*: a :class:`Para` (one line of text
whose continuation lines hang under a given column) or :class:`Columns` (rows of two columns, the
right one wrapping under itself; on a narrow terminal the right text goes under its left one).
:func:`layout` turns them into lines no wider than the terminal: words wrap at spaces, a token
with no space in it (a path, a URL, an id) that cannot fit is folded across lines, never dropped.
Widths are counted in terminal cells (a CJK character takes two).

The session sanitises each row before it measures it (an escape sequence is shown as visible
text, and measured as what is shown). Without a width (output that is not a terminal) nothing is
wrapped: a pipe gets whole lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from forge_cli.fitting import cells, wrap
from forge_cli.wording import shorten

__all__ = ["Block", "Columns", "Para", "cells", "layout", "numbered", "wrap"]


@dataclass(frozen=True)
class Para:
    """One line of text; when it wraps, its continuation lines hang ``hang`` cells in.

    With ``max_lines``, text that would wrap onto more lines is cut at a word and ends with
    "…" on the last line allowed; ``tail`` (a status mark) always follows the text, cut or not.
    """

    text: str
    hang: int = 0
    max_lines: int | None = None
    tail: str = ""

    def lines(self, width: int | None, clean: Callable[[str], str]) -> list[str]:
        text, tail = clean(self.text), clean(self.tail)
        lines = wrap(text + tail, width, hang=self.hang)
        if self.max_lines is None or len(lines) <= self.max_lines:
            return lines
        # The longest cut of the text (at a word, "…" added) whose lines still fit.
        low, high = 0, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            if len(wrap(shorten(text, middle) + tail, width, hang=self.hang)) <= self.max_lines:
                low = middle
            else:
                high = middle - 1
        return wrap(shorten(text, low) + tail, width, hang=self.hang)


@dataclass(frozen=True)
class Columns:
    """Rows of two columns: ``indent`` spaces, the left text padded to the widest (at most
    ``max_left`` cells), ``gap`` spaces, then the right text wrapping under its own column.

    When the right column would get fewer than ``min_right`` cells, each row becomes the left
    text on its line and the right text under it, ``under`` cells in.
    """

    rows: Sequence[tuple[str, str]]
    indent: int = 2
    gap: int = 2
    max_left: int = 26
    min_right: int = 24
    under: int = 6
    left_width: int | None = field(default=None)
    """A fixed width for the left column (else the widest left text, up to ``max_left``)."""
    right_hang: int = 0
    """How much further in than the right column its continuation lines start (a right text
    that is itself two columns wraps under its second one)."""

    def lines(self, width: int | None, clean: Callable[[str], str]) -> list[str]:
        rows = [(clean(left), clean(right)) for left, right in self.rows]
        if not rows:
            return []
        left_width = self.left_width
        if left_width is None:
            left_width = min(max(cells(left) for left, _ in rows), self.max_left)
        column = self.indent + left_width + self.gap
        pad = " " * self.indent
        out: list[str] = []
        if width is not None and width - column < self.min_right:
            for left, right in rows:
                out += wrap(pad + left, width, hang=self.indent + 2)
                if right.strip():  # its own alignment padding has no use here
                    out += wrap(" " * self.under + right.lstrip(), width, hang=self.under)
            return out
        for left, right in rows:
            if cells(left) > left_width:  # a long left text: the right one goes under it
                out += wrap(pad + left, width, hang=self.indent + 2)
                if right:
                    out += wrap(" " * column + right, width, hang=column)
                continue
            spaces = " " * (left_width - cells(left) + self.gap)
            out += wrap(pad + left + spaces + right, width, hang=column + self.right_hang)
        return out


Block = Para | Columns


def numbered(number: int, text: str) -> Para:
    """``[n] text`` (a search hit, a source), its continuation lines under the text."""
    label = f"[{number}] "
    return Para(label + text, hang=len(label))


def layout(
    output: str | Iterable[Block], width: int | None, clean: Callable[[str], str]
) -> list[str]:
    """The lines of a command's ``output`` at ``width`` cells (``None``: no wrapping).

    ``clean`` makes each row safe to print (sanitised, secrets redacted) before it is measured.
    Plain text wraps line by line, each continuation under the line's own indentation.
    """
    if isinstance(output, str):
        blocks: Iterable[Block] = [
            Para(line, len(line) - len(line.lstrip(" "))) for line in output.split("\n")
        ]
    else:
        blocks = output
    lines: list[str] = []
    for block in blocks:
        lines += block.lines(width, clean)
    return lines
