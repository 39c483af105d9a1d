"""Citation markers in a streamed answer: ``[n]`` (also ``[n, m]`` and ``[n][m]``) -> annotations.

The upstream model is told to cite numbered passages as ``[n]``. :class:`CitationFilter` removes
the markers from the text as it streams -- holding back a partial ``[12`` until it can tell -- and
reports each cited number at the character where its marker stood, so the engine can place a
``file_citation`` there (OpenAI style: clean text, the annotation's ``index`` marks the place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CitationFilter", "Segment"]

_MARKER = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_PARTIAL = re.compile(r"\[[\d,\s]{0,12}$")


@dataclass(frozen=True, slots=True)
class Segment:
    """Either text to write or a list of cited passage numbers."""

    text: str = ""
    cites: tuple[int, ...] = ()


class CitationFilter:
    """Splits streamed text into plain text and citation markers.

    ``known`` decides whether a number refers to a real passage; markers with unknown numbers
    stay in the text unchanged.
    """

    def __init__(self, known: set[int] | None = None) -> None:
        self._pending = ""
        self.known = known if known is not None else set()

    def feed(self, delta: str) -> list[Segment]:
        """Segments that are certain now; a possible partial marker is held back."""
        text = self._pending + delta
        partial = _PARTIAL.search(text)
        if partial is not None:
            start = partial.start()
            if start > 0 and text[start - 1] == " ":
                start -= 1  # keep the space with the marker, so "word [1]" becomes "word"
            self._pending = text[start:]
            text = text[:start]
        else:
            self._pending = ""
        return self._split(text)

    def finish(self) -> list[Segment]:
        """Whatever was held back."""
        text, self._pending = self._pending, ""
        return self._split(text)

    def _split(self, text: str) -> list[Segment]:
        segments: list[Segment] = []
        last = 0
        for match in _MARKER.finditer(text):
            numbers = tuple(int(n) for n in re.findall(r"\d+", match.group(1)))
            if not numbers or not all(n in self.known for n in numbers):
                continue
            before = text[last : match.start()].removesuffix(" ")  # "word [1]." -> "word."
            if before:
                segments.append(Segment(text=before))
            segments.append(Segment(cites=numbers))
            last = match.end()
        if text[last:]:
            segments.append(Segment(text=text[last:]))
        return segments
