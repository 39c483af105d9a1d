"""Incremental splitting of streamed Markdown into completed blocks.

A block ends at a blank line outside a fenced code block, once the next block has visibly begun
(its first character is neither a space nor a tab, so list continuations and indented code stay
with their block). Feeding the text in any chunking gives the same blocks as feeding it whole,
which is what lets the streaming renderer's output equal a one-shot render. Each call scans only
the new text: the cost of a whole answer is linear.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Block", "BlockSplitter", "split_blocks"]


@dataclass(frozen=True, slots=True)
class Block:
    """A completed block: ``text[start:end]`` (no trailing newline).

    Character positions in ``[own_start, own_end)`` belong to this block (the blank lines after
    it included), so an annotation pointing there is drawn in it.
    """

    start: int
    end: int
    own_start: int
    own_end: int


class BlockSplitter:
    """Feed a growing text; get each completed block once."""

    __slots__ = ("_block_start", "_content_end", "_fence", "_own_start", "_pos", "_split_pending")

    def __init__(self) -> None:
        self._pos = 0  # start of the first line not yet scanned
        self._block_start: int | None = None  # first char of the current block
        self._content_end = 0  # end of the current block's last non-blank line
        self._fence: str | None = None  # the opening fence while inside fenced code
        self._split_pending = False  # a blank line followed the current block
        self._own_start = 0

    @property
    def pending_start(self) -> int:
        """Where the unfinished block starts (the end of the text when there is none)."""
        return self._block_start if self._block_start is not None else self._pos

    def feed(self, text: str) -> list[Block]:
        """Scan what was added to ``text`` since the last call; return newly completed blocks."""
        done: list[Block] = []
        while True:
            self._maybe_split(text, done)
            newline = text.find("\n", self._pos)
            if newline < 0:
                break
            self._scan_line(text, self._pos, newline)
            self._pos = newline + 1
        return done

    def finish(self, text: str) -> list[Block]:
        """All blocks still open once ``text`` is complete."""
        done = self.feed(text)
        if self._pos < len(text):
            self._scan_line(text, self._pos, len(text))
            self._pos = len(text)
        if self._block_start is not None:
            done.append(Block(self._block_start, self._content_end, self._own_start, len(text) + 1))
            self._block_start = None
            self._own_start = len(text)
        return done

    def _maybe_split(self, text: str, done: list[Block]) -> None:
        if not self._split_pending or self._pos >= len(text):
            return
        if text[self._pos] in " \t\n\r":
            return
        assert self._block_start is not None
        done.append(Block(self._block_start, self._content_end, self._own_start, self._pos))
        self._own_start = self._pos
        self._block_start = None
        self._split_pending = False

    def _scan_line(self, text: str, start: int, end: int) -> None:
        line = text[start:end]
        stripped = line.strip()
        if self._fence is not None:
            if _closes(stripped, line, self._fence):
                self._fence = None
            self._content_end = end
            return
        if not stripped:
            if self._block_start is not None:
                self._split_pending = True
            return
        if self._block_start is None:
            self._block_start = start
        self._split_pending = False
        self._content_end = end
        self._fence = _opens(line)


def _opens(line: str) -> str | None:
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3:
        return None
    body = line[indent:]
    for char in "`~":
        if body.startswith(char * 3):
            run = len(body) - len(body.lstrip(char))
            if char == "`" and "`" in body[run:]:
                return None
            return char * run
    return None


def _closes(stripped: str, line: str, fence: str) -> bool:
    indent = len(line) - len(line.lstrip(" "))
    return indent <= 3 and stripped.startswith(fence) and not stripped.strip(fence[0])


def split_blocks(text: str) -> list[Block]:
    """The blocks of a complete text (the same split the streaming renderer makes)."""
    return BlockSplitter().finish(text)
