"""Help pages that fit the terminal, also a narrow one.

click lays a help page out at least 50 columns wide and never wraps a long option (``-t, --tool
[file-search|web-search|...]``) or a line of a ``\\b`` block: on a 40-column terminal (or an
80-column one, for the longest options) the terminal then cut those lines mid-word. This
formatter keeps click's layout where it fits and, where it does not, narrows the first column,
breaks a long option after a ``|`` or ``,`` and wraps a ``\\b`` line under its second column.
It changes click's layout only through click's public formatter API (``Context.formatter_class``,
``write_dl``, ``write_text``); the page itself is click's.
"""

from __future__ import annotations

from collections.abc import Iterable

import click

__all__ = ["HELP_MIN_WIDTH", "ForgeContext", "HelpFormatter", "use_forge_help"]

HELP_MIN_WIDTH = 20
"""The narrowest help page. click's own floor is 50: a 40-column terminal then cut every longer
line of a help page mid-word."""


def help_column_max(width: int) -> int:
    """The widest first column of an options or commands list on a page ``width`` wide: click's
    30, and a third of the page below click's floor of 50 (so the descriptions keep room)."""
    return 30 if width >= 50 else max(width // 3, 10)


def fit_raw_line(line: str, width: int) -> list[str]:
    """A line of a ``\\b`` block (kept as written) as lines of at most ``width``: wrapped at
    spaces when longer, continued under its second column (``  141  output closed ...``), or
    two spaces further in when it has none."""
    if len(line) <= width:
        return [line]
    from textwrap import TextWrapper

    body = line.lstrip(" ")
    hang = len(line) - len(body) + 2
    first_word, gap, rest = body.partition("  ")
    if gap and " " not in first_word and rest.strip():
        hang = len(line) - len(body) + len(first_word) + len(rest) - len(rest.lstrip(" ")) + 2
    hang = min(hang, width // 2)
    wrapper = TextWrapper(width, subsequent_indent=" " * hang, break_on_hyphens=False)
    return wrapper.wrap(line) or [line]


class HelpFormatter(click.HelpFormatter):
    """click's formatter, fitted to the terminal's width (see the module's docstring)."""

    def __init__(
        self, indent_increment: int = 2, width: int | None = None, max_width: int | None = None
    ) -> None:
        if width is None:
            width = click.formatting.FORCED_WIDTH
        if width is None:
            import shutil  # only for a help page: a search or an answer never loads it

            columns = shutil.get_terminal_size().columns
            width = max(min(columns, max_width or 80) - 2, HELP_MIN_WIDTH)
        super().__init__(indent_increment, width, max_width)

    def write_dl(
        self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        room = self.width - self.current_indent
        fitted: list[tuple[str, str]] = []
        for term, text in rows:
            *before, last = _split_term(term, room)
            fitted.extend((piece, "") for piece in before)
            fitted.append((last, text))
        super().write_dl(fitted, min(col_max, help_column_max(self.width)), col_spacing)

    def write_text(self, text: str) -> None:
        super().write_text(_fit_raw_blocks(text, self.width - self.current_indent))


def _split_term(term: str, room: int) -> list[str]:
    """``term`` as lines of at most ``room``, broken after a ``|``, ``,`` or space; the lines
    after the first two spaces in."""
    if len(term) <= room:
        return [term]
    pieces: list[str] = []
    start = 0
    for index, char in enumerate(term):
        if char in "|, ":
            pieces.append(term[start : index + 1])
            start = index + 1
    pieces.append(term[start:])
    lines: list[str] = []
    line = ""
    for piece in pieces:
        limit = room if not lines else room - 2
        if line and len(line) + len(piece.rstrip()) > limit:
            lines.append(line.rstrip())
            line = ""
        line += piece
    if line.strip():
        lines.append(line.rstrip())
    return [lines[0], *("  " + rest for rest in lines[1:])]


def _fit_raw_blocks(text: str, width: int) -> str:
    """``text`` with each line of its ``\\b`` blocks (which click keeps as written) wrapped to
    ``width`` by :func:`fit_raw_line`."""
    out: list[str] = []
    raw_indent: int | None = None
    for line in text.splitlines():
        if not line.strip():
            raw_indent = None
        elif line.strip() == "\b":
            raw_indent = len(line) - len(line.lstrip())
        elif raw_indent is not None:
            out.extend(fit_raw_line(line, width - raw_indent))
            continue
        out.append(line)
    return "\n".join(out)


class ForgeContext(click.Context):
    """A context whose help pages use :class:`HelpFormatter`."""

    formatter_class = HelpFormatter


def use_forge_help(command: click.Command) -> click.Command:
    """``command`` (and a group's sub-commands) with :class:`ForgeContext` for their help."""
    if command.context_class is click.Context:
        command.context_class = ForgeContext
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            use_forge_help(sub)
    return command
