"""Typed records the knowledge store hands out.

They are frozen, slotted, keyword-only dataclasses: no caller can mutate what another caller holds,
and building one costs no validator. They are plain data: the builders (the store's row readers,
the HTTP client's JSON readers) check and convert every field, and :func:`record_dict` turns any
record into JSON-ready data. Not pydantic models: importing pydantic and building their
validators was most of ``forge vs search``'s start-up (ADR 0017).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

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
    "record_dict",
]

AttributeValue = str | int | float | bool
"""A value of a membership attribute, as in the OpenAI vector store file ``attributes``."""

Attributes = dict[str, AttributeValue]

ProgressCallback = Callable[[int, int, str], None]
"""Called as ``progress(done, total, filename)`` after each file of a batch."""

IngestStatus = Literal["ok", "duplicate", "replaced", "unchanged", "rejected"]


def record_dict(record: object) -> dict[str, Any]:
    """A record as JSON-ready data (nested records become dicts, fields in declared order)."""
    return dataclasses.asdict(record)  # type: ignore[call-overload, no-any-return]


def _check_score(record: SearchHit | DocumentHit) -> None:
    """Scores are floats in [0, 1] (an int is stored as a float, as JSON readers expect)."""
    score = float(record.score)
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be between 0 and 1, not {record.score!r}")
    object.__setattr__(record, "score", score)


@dataclass(frozen=True, slots=True, kw_only=True)
class FileRecord:
    """A file known to the store: its bytes are kept, its text is extracted and chunked."""

    id: str
    filename: str
    bytes: int
    sha256: str
    mime_type: str
    created_at: int
    status: Literal["processed"] = "processed"
    metadata: dict[str, str] = field(default_factory=dict)
    page_count: int | None = None
    chunk_count: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class FileCounts:
    """How many files a vector store holds, by status (ingestion is synchronous here)."""

    in_progress: int = 0
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    total: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class VectorStore:
    """A named collection of files that can be searched together."""

    id: str
    name: str
    description: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    status: Literal["completed"] = "completed"
    created_at: int
    file_counts: FileCounts = field(default_factory=lambda: FileCounts())
    usage_bytes: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class VectorStoreFile:
    """A file's membership in a vector store, with the attributes filters look at."""

    vector_store_id: str
    file_id: str
    filename: str
    attributes: Attributes = field(default_factory=dict)
    status: Literal["completed"] = "completed"
    created_at: int
    bytes: int = 0
    source_path: str | None = None
    """Where the file came from (its identity in the store, ``sources.py``), when known."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchHit:
    """One retrieved chunk: where it comes from, how well it matched, and its text."""

    file_id: str
    filename: str
    vector_store_id: str
    page: int | None
    score: float
    text: str
    snippet: str
    ordinal: int
    char_start: int
    char_end: int
    heading: str | None = None
    attributes: Attributes = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_score(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentHit:
    """One document in a listing: the file, its best score and a short summary."""

    file_id: str
    filename: str
    vector_store_id: str
    score: float
    summary: str
    page_count: int | None = None
    bytes: int = 0
    attributes: Attributes = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_score(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    """A page of a document's extracted text (the whole text is page 1 of a non-paged file)."""

    number: int
    text: str
    char_start: int
    char_end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FileText:
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


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestResult:
    """What happened to one file of an ingest: stored, found as a duplicate, or rejected."""

    filename: str
    status: IngestStatus
    file: FileRecord | None = None
    reason: str | None = None
    path: str | None = None
    joined_store: bool = False
    """A duplicate that was not yet in the target vector store and now is (its content was
    uploaded before, under its first name): the store gained a file, stored once."""

    @property
    def ok(self) -> bool:
        """True when the file is in the store (new or duplicate)."""
        return self.status != "rejected"


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchReport:
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
