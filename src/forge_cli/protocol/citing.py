"""The retrieval and citation core: numbered passages and the in-text marker grammar.

One module for what every side of a cited answer must agree on:

- **Passages.** Every passage a retrieval tool shows a model gets a number (``1``, ``2``, ...) in a
  :class:`PassageBook`: per response in the engine, per run for the client tools. The model reads
  them as :func:`numbered` text and is told (:data:`CITE_HINT`) to cite with those numbers; a
  citation becomes the passage's ``file_citation`` (or ``url_citation``) annotation.
- **The ``[n]`` grammar models write**: ``[n]``, ``[n, m]`` and ``[n][m]`` (:data:`CITE_RE`,
  :func:`find_markers`), removed from streamed text by :class:`CitationFilter` (the engine) or
  turned into annotations in place (the agent loop).
- **The markers servers write** (:data:`MARKER_RE`): *strong* markers are unambiguous and always
  count: ``⟦⟦n⟧⟧`` (Knowledge Forge), ``⟦n⟧`` and ``⁽ⁿ⁾``. *Weak* markers (``[n]`` and bare
  superscript digits such as ``¹``) also occur in ordinary text (``x[1]``, ``m²``), so they count
  only when an annotation of the message claims their number. Renderers show every marker as
  ``[n]`` with their own numbering (:mod:`forge_cli.protocol.citations`).

A passage number has at most :data:`MAX_DIGITS` digits everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CITE_HINT",
    "CITE_RE",
    "MARKER_RE",
    "MAX_DIGITS",
    "PARTIAL_MARKER_RE",
    "CitationFilter",
    "Passage",
    "PassageBook",
    "Segment",
    "find_markers",
    "marker_number",
    "numbered",
    "superscript_to_int",
]

MAX_DIGITS = 4
"""The longest passage number a marker may carry (9999 passages in one book)."""

CITE_HINT = "Cite the passages you use with their numbers in square brackets, e.g. [1]."
"""What a retrieval tool tells the model about citing."""

_SNIPPET_CHARS = 200
_N = rf"\d{{1,{MAX_DIGITS}}}"

# -- passages ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Passage:
    """A numbered piece of a document (``file_id``) or of a web page (``url``)."""

    number: int
    text: str
    filename: str
    file_id: str | None = None
    page: int | None = None
    score: float | None = None
    url: str | None = None
    title: str | None = None
    vector_store_id: str | None = None

    @property
    def label(self) -> str:
        """``filename (p. 3)`` or the page title, for headings."""
        if self.url is not None:
            return self.title or self.url
        return f"{self.filename} (p. {self.page})" if self.page else self.filename

    @property
    def source_line(self) -> str:
        """``filename, page 3 (file_id f)`` or ``title (url)``: where a passage comes from, as
        a model reads it (the file id lets it call a reader)."""
        if self.url is not None:
            return f"{self.title} ({self.url})" if self.title else self.url
        page = f", page {self.page}" if self.page is not None else ""
        file_id = f" (file_id {self.file_id})" if self.file_id else ""
        return f"{self.filename}{page}{file_id}"

    def snippet(self, text: str | None = None) -> str:
        """A short single-line excerpt (of ``text`` when given, else of the passage)."""
        flat = " ".join((text if text is not None else self.text).split())
        return flat if len(flat) <= _SNIPPET_CHARS else flat[: _SNIPPET_CHARS - 1] + "…"

    def annotation(self, index: int, quoted: str | None = None) -> dict[str, Any]:
        """The citation annotation (wire form) of this passage placed at character ``index``."""
        if self.url is not None:
            return {
                "type": "url_citation",
                "url": self.url,
                "title": self.title or self.url,
                "start_index": index,
                "end_index": index,
            }
        citation: dict[str, Any] = {
            "type": "file_citation",
            "file_id": self.file_id or "",
            "filename": self.filename,
            "index": index,
            "snippet": self.snippet(quoted),
        }
        if self.page is not None:
            citation["page"] = self.page
        return citation


@dataclass
class PassageBook:
    """Passages numbered in the order tools found them; a number is never given twice."""

    passages: list[Passage] = field(default_factory=list)

    def add(
        self,
        text: str,
        filename: str,
        *,
        file_id: str | None = None,
        page: int | None = None,
        score: float | None = None,
        url: str | None = None,
        title: str | None = None,
        vector_store_id: str | None = None,
    ) -> Passage:
        """Number and keep a new passage."""
        passage = Passage(
            len(self.passages) + 1, text, filename, file_id, page, score, url, title,
            vector_store_id,
        )  # fmt: skip
        self.passages.append(passage)
        return passage

    def get(self, number: int) -> Passage | None:
        """The passage with this number, if any."""
        return self.passages[number - 1] if 1 <= number <= len(self.passages) else None


def numbered(passages: Iterable[Passage], *, hint: bool = False) -> str:
    """Passages as a model reads them: ``[n] label`` then the text, blank line between; with
    ``hint``, :data:`CITE_HINT` last."""
    blocks = [f"[{p.number}] {p.source_line}\n{p.text.strip()}" for p in passages]
    if hint and blocks:
        blocks.append(CITE_HINT)
    return "\n\n".join(blocks)


# -- the [n] grammar models write ----------------------------------------------------------------

CITE_RE = re.compile(rf"\[({_N}(?:\s*,\s*{_N})*)\]")
"""``[n]`` or ``[n, m, ...]``; group 1 holds the numbers."""

_PARTIAL_CITE = re.compile(rf"\[[\d,\s]{{0,{3 * MAX_DIGITS}}}$")


def _numbers(group: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", group))


def find_markers(text: str) -> list[tuple[int, int]]:
    """``(number, position after the marker)`` for each number of each ``[n]`` / ``[n, m]``."""
    return [
        (number, match.end())
        for match in CITE_RE.finditer(text)
        for number in _numbers(match.group(1))
    ]


@dataclass(frozen=True, slots=True)
class Segment:
    """Either text to write or a list of cited passage numbers."""

    text: str = ""
    cites: tuple[int, ...] = ()


class CitationFilter:
    """Splits streamed text into plain text and citation markers.

    Markers are removed from the text as it streams -- a partial ``[12`` is held back until it
    can tell -- and each cited number is reported where its marker stood, so a ``file_citation``
    can be placed there (OpenAI style: clean text, the annotation's ``index`` marks the place).
    ``known`` decides whether a number refers to a real passage; markers with unknown numbers
    stay in the text unchanged.
    """

    def __init__(self, known: set[int] | None = None) -> None:
        self._pending = ""
        self.known = known if known is not None else set()

    def feed(self, delta: str) -> list[Segment]:
        """Segments that are certain now; a possible partial marker is held back."""
        text = self._pending + delta
        partial = _PARTIAL_CITE.search(text)
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
        for match in CITE_RE.finditer(text):
            numbers = _numbers(match.group(1))
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


# -- markers servers write -----------------------------------------------------------------------

_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUP_CLASS = f"[{_SUP}]"
_SUP_VALUE = {ch: str(i) for i, ch in enumerate(_SUP)}

MARKER_RE = re.compile(
    rf"⟦⟦(?P<s1>{_N})⟧⟧"
    rf"|⟦(?P<s2>{_N})⟧"
    rf"|⁽(?P<s3>{_SUP_CLASS}{{1,{MAX_DIGITS}}})⁾"
    rf"|(?<![\w\]\\!\[])\[(?P<w1>{_N})\](?![(\[:])"
    rf"|(?P<w2>{_SUP_CLASS}{{1,3}})"
)
"""Any marker; groups ``s1``-``s3`` are strong, ``w1``/``w2`` weak."""

PARTIAL_MARKER_RE = re.compile(
    rf"(?:⟦⟦?\d{{0,{MAX_DIGITS}}}⟧?|⁽{_SUP_CLASS}{{0,{MAX_DIGITS}}}|\[\d{{0,{MAX_DIGITS}}}"
    rf"|{_SUP_CLASS}+)$"
)
"""A text end that may be the start of a marker still streaming in (held back by plain mode)."""


def superscript_to_int(text: str) -> int:
    """``¹²`` → 12."""
    return int("".join(_SUP_VALUE[ch] for ch in text))


def marker_number(match: re.Match[str]) -> tuple[int, bool]:
    """The server's number of a :data:`MARKER_RE` match and whether the marker is strong."""
    for group in ("s1", "s2"):
        if match.group(group):
            return int(match.group(group)), True
    if match.group("s3"):
        return superscript_to_int(match.group("s3")), True
    if match.group("w1"):
        return int(match.group("w1")), False
    return superscript_to_int(match.group("w2")), False
