"""Append-only text buffers: amortized O(1) deltas, lazily joined text, immutable views.

The SnapshotBuilder appends every text delta to a :class:`TextBuffer`. A snapshot does not copy the
text; it holds a :class:`TextView` -- the buffer plus the number of fragments at snapshot time.
Because the buffer only ever grows, a view taken earlier keeps reading the same text forever, so a
snapshot handed out is never changed by later deltas. Joining happens on first read and is cached
incrementally (reading the newest text after every delta joins only the new fragments); an older
view is a slice of that cached text, found through cumulative fragment lengths. Views keep no copy
of their own, so holding many snapshots costs no more memory than the text itself.
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["TextBuffer", "TextView"]


class TextBuffer:
    """An append-only sequence of text fragments."""

    __slots__ = ("_ends", "_joined", "_joined_count", "_parts")

    def __init__(self, initial: str = "") -> None:
        self._parts: list[str] = [initial] if initial else []
        self._ends: list[int] = [len(initial)] if initial else []
        self._joined = initial
        self._joined_count = len(self._parts)

    def append(self, fragment: str) -> None:
        """Add a fragment in amortized O(1)."""
        if fragment:
            self._parts.append(fragment)
            self._ends.append((self._ends[-1] if self._ends else 0) + len(fragment))

    def view(self) -> TextView:
        """An immutable view of the text as it is now."""
        return TextView(self, len(self._parts))

    def text_at(self, count: int) -> str:
        """The text made of the first ``count`` fragments (cached, extended incrementally)."""
        if count == self._joined_count:
            return self._joined
        if count > self._joined_count:
            joined = self._joined + "".join(self._parts[self._joined_count : count])
            self._joined, self._joined_count = joined, count
            return joined
        return self._joined[: self._ends[count - 1]] if count else ""

    def length_at(self, count: int) -> int:
        """The length of the text made of the first ``count`` fragments (nothing is joined)."""
        return self._ends[count - 1] if count else 0

    def text_from(self, start: int, count: int) -> str:
        """``text_at(count)[start:]``, joining only the fragments from ``start`` on.

        A reader that follows the text (the plain renderer writes what is new) pays for the new
        text only, not for the whole text on every read.
        """
        if count <= self._joined_count:
            return self.text_at(count)[start:]
        first = bisect_right(self._ends, start, 0, count)  # the fragment that holds ``start``
        if first >= count:
            return ""
        offset = self._ends[first - 1] if first else 0
        return "".join(self._parts[first:count])[max(0, start - offset) :]

    def __len__(self) -> int:
        return len(self._parts)


class TextView:
    """The text of a buffer at one moment; reading it never changes."""

    __slots__ = ("_buffer", "_count")

    def __init__(self, buffer: TextBuffer, count: int) -> None:
        self._buffer = buffer
        self._count = count

    @property
    def text(self) -> str:
        """The joined text of this view."""
        return self._buffer.text_at(self._count)

    @property
    def length(self) -> int:
        """The length of :attr:`text`, without joining it."""
        return self._buffer.length_at(self._count)

    def text_from(self, start: int) -> str:
        """``text[start:]``, joining only the fragments it needs."""
        return self._buffer.text_from(start, self._count)

    def extends(self, other: TextView) -> bool:
        """Whether this view's text starts with ``other``'s (a later view of the same buffer)."""
        return self._buffer is other._buffer and self._count >= other._count

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"TextView({self.text!r})"
