"""Numbered passages: what hosted tools found, and how answers cite it.

Every passage a tool returns in one response gets a number (1, 2, ...). The upstream model sees
the numbers in tool output and cites ``[n]``; the retrieval answerer cites passages directly.
Either way a citation becomes a ``file_citation`` (or ``url_citation``) annotation built here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Passage", "PassageBook"]

_SNIPPET_CHARS = 200


@dataclass(frozen=True, slots=True)
class Passage:
    """A piece of a document (``file_id``) or of a web page (``url``)."""

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
        """``filename (p. 3)`` or the page title, for tool output and headings."""
        if self.url is not None:
            return self.title or self.url
        return f"{self.filename} (p. {self.page})" if self.page else self.filename

    def snippet(self, text: str | None = None) -> str:
        """A short single-line excerpt (of ``text`` when given, else of the passage)."""
        flat = " ".join((text if text is not None else self.text).split())
        return flat if len(flat) <= _SNIPPET_CHARS else flat[: _SNIPPET_CHARS - 1] + "…"

    def annotation(self, index: int, quoted: str | None = None) -> dict[str, Any]:
        """The citation annotation of this passage placed at character ``index``."""
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
    """All passages of one response, numbered in the order tools found them."""

    passages: list[Passage] = field(default_factory=list)

    def add(self, **fields: Any) -> Passage:
        """Number and keep a new passage."""
        passage = Passage(number=len(self.passages) + 1, **fields)
        self.passages.append(passage)
        return passage

    def get(self, number: int) -> Passage | None:
        """The passage with this number, if any."""
        return self.passages[number - 1] if 1 <= number <= len(self.passages) else None
