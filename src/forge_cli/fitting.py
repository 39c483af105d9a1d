"""Text fitted to a terminal's width: widths in cells, words wrapped whole, long tokens folded.

One rule for every piece of Forge that lays text out itself (the REPL's command output, the tool
approval question, ``forge doctor``, the first chat screen): words wrap at spaces, a token with no
space in it (a path, a URL, an id) that cannot fit is folded after one of its own separators and
never dropped, and widths are counted in terminal cells (a CJK character takes two). Imports
nothing of ours (import-linter), so any layer may use it.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import IO

__all__ = ["cells", "terminal_columns", "wrap"]


def terminal_columns(stream: IO[str]) -> int | None:
    """The columns of the terminal ``stream`` writes to; ``None`` when it is not a terminal (or
    has no descriptor, as a test's StringIO)."""
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return None
        return os.get_terminal_size(fd).columns or None
    except (AttributeError, ValueError, OSError):
        return None


_PIECES = re.compile(r"\S+|\s+")


def _char_cells(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes."""
    if text.isascii():
        return len(text)
    return sum(_char_cells(char) for char in text)


_SEPARATORS = ("/\\", "_-.?&=:,;@#")


def _fold(token: str, room: int) -> tuple[str, str]:
    """``token`` cut after at most ``room`` cells (at least one character), and the rest.

    The cut comes after a separator (``/`` first, then ``_``, ``-``, ``.``...) past the first third
    of the room: ``/tmp/data/`` + ``conversations/…``, not ``/tmp/dat`` + ``a/…``.
    """
    used, end = 0, len(token)
    for at, char in enumerate(token):
        used += _char_cells(char)
        if used > room:
            end = max(at, 1)
            break
    if end == len(token):
        return token, ""
    for separators in _SEPARATORS:  # a path's own "/" first, then the other separators
        cut = max(token.rfind(sep, 0, end) for sep in separators) + 1
        if cut > 0 and cells(token[:cut]) * 3 >= room:
            return token[:cut], token[cut:]
    return token[:end], token[end:]


def wrap(text: str, width: int | None, *, hang: int = 0) -> list[str]:
    """``text`` (one line) in lines of at most ``width`` cells; continuation lines start with
    ``hang`` spaces. The first line keeps its own leading spaces; runs of spaces inside a line are
    kept (aligned columns), the spaces at a break are dropped. A word that fits no line is folded.
    """
    text = text.rstrip()
    if width is None or cells(text) <= width:
        return [text]
    hang = max(0, min(hang, width // 2))  # a continuation always has room for some text
    lines: list[str] = []
    line, used = "", 0
    for piece in _PIECES.findall(text):
        size = cells(piece)
        if piece.isspace():
            # Spaces inside a line are kept, and the first line's indent; a continuation's
            # leading spaces (the break) are dropped.
            if line.strip() or not lines:
                line, used = line + piece, used + size
            continue
        if used + size <= width:
            line, used = line + piece, used + size
            continue
        if line.strip() and hang + size <= width:  # the word fits on a line of its own
            lines.append(line.rstrip())
            line, used = " " * hang + piece, hang + size
            continue
        # Too long for any line: fold it, starting where we are (if a few cells are left).
        if line.strip() and width - used < 8:
            lines.append(line.rstrip())
            line, used = " " * hang, hang
        while piece:
            head, piece = _fold(piece, max(1, width - used))
            line += head
            if piece:
                lines.append(line)
                line, used = " " * hang, hang
            else:
                used = cells(line)
    if line.strip():
        lines.append(line.rstrip())
    return lines
