"""Typed records the knowledge store hands out.

They are frozen pydantic models so the engine and ``forge serve`` can serialise them directly and
no caller can mutate what another caller holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AttributeValue",
    "Attributes",
    "BatchReport",
    "DocumentHit",
    "FileCounts",
    "FileRecord",
    "FileText",
    "IngestResult",
    "IngestStatus",
    "Page",
    "ProgressCallback",
    "SearchHit",
    "VectorStore",
    "VectorStoreFile",
]

AttributeValue = str | int | float | bool
"""A value of a membership attribute, as in the OpenAI vector store file ``attributes``."""

Attributes = dict[str, AttributeValue]

ProgressCallback = Callable[[int, int, str], None]
"""Called as ``progress(done, total, filename)`` after each file of a batch."""

IngestStatus = Literal["ok", "duplicate", "rejected"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FileRecord(_Record):
    """A file known to the store: its bytes are kept, its text is extracted and chunked."""

    id: str
    filename: str
    bytes: int
    sha256: str
    mime_type: str
    created_at: int
    status: Literal["processed"] = "processed"
    metadata: dict[str, str] = Field(default_factory=dict)
    page_count: int | None = None
    chunk_count: int = 0


class FileCounts(_Record):
    """How many files a vector store holds, by status (ingestion is synchronous here)."""

    in_progress: int = 0
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    total: int = 0


class VectorStore(_Record):
    """A named collection of files that can be searched together."""

    id: str
    name: str
    description: str | None = None
    metadata: dict[str, str] = Field(default_factory=dict)
    status: Literal["completed"] = "completed"
    created_at: int
    file_counts: FileCounts = Field(default_factory=FileCounts)
    usage_bytes: int = 0


class VectorStoreFile(_Record):
    """A file's membership in a vector store, with the attributes filters look at."""

    vector_store_id: str
    file_id: str
    filename: str
    attributes: Attributes = Field(default_factory=dict)
    status: Literal["completed"] = "completed"
    created_at: int
    bytes: int = 0


class SearchHit(_Record):
    """One retrieved chunk: where it comes from, how well it matched, and its text."""

    file_id: str
    filename: str
    vector_store_id: str
    page: int | None
    score: float = Field(ge=0.0, le=1.0)
    text: str
    snippet: str
    ordinal: int
    char_start: int
    char_end: int
    heading: str | None = None
    attributes: Attributes = Field(default_factory=dict)


class DocumentHit(_Record):
    """One document in a listing: the file, its best score and a short summary."""

    file_id: str
    filename: str
    vector_store_id: str
    score: float = Field(ge=0.0, le=1.0)
    summary: str
    page_count: int | None = None
    bytes: int = 0
    attributes: Attributes = Field(default_factory=dict)


class Page(_Record):
    """A page of a document's extracted text (the whole text is page 1 of a non-paged file)."""

    number: int
    text: str
    char_start: int
    char_end: int


class FileText(_Record):
    """A document's extracted text with its page layout; backs the file_reader tool."""

    file_id: str
    filename: str
    text: str
    paged: bool
    pages: list[Page]

    @property
    def page_count(self) -> int:
        """Number of pages (1 for a file without pages)."""
        return len(self.pages)


class IngestResult(_Record):
    """What happened to one file of an ingest: stored, found as a duplicate, or rejected."""

    filename: str
    status: IngestStatus
    file: FileRecord | None = None
    reason: str | None = None
    path: str | None = None

    @property
    def ok(self) -> bool:
        """True when the file is in the store (new or duplicate)."""
        return self.status != "rejected"


class BatchReport(_Record):
    """Per-file results of a batch ingest, in input order.

    ``interrupted``: Ctrl+C stopped the batch after a file; ``results`` hold the files settled
    (and committed) before that, ``not_started`` counts the files never looked at.
    """

    results: list[IngestResult]
    interrupted: bool = False
    not_started: int = 0

    @property
    def added(self) -> list[IngestResult]:
        """Files stored by this batch."""
        return [r for r in self.results if r.status == "ok"]

    @property
    def duplicates(self) -> list[IngestResult]:
        """Files whose content was already in the store."""
        return [r for r in self.results if r.status == "duplicate"]

    @property
    def rejected(self) -> list[IngestResult]:
        """Files that could not be ingested, each with its reason."""
        return [r for r in self.results if r.status == "rejected"]
