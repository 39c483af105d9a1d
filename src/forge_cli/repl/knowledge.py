"""The knowledge seam of the REPL: what /vs, /upload, /docs and /search need from a backend.

The CLI adapts the backend's knowledge client to this Protocol; tests pass a fake. Batch uploads
report progress through a ``progress(done, total, filename)`` callback (the knowledge layer's
``ProgressCallback``); :class:`ProgressLine` draws it as a one-line bar on a terminal, and
:func:`result_line` formats the per-file outcome the same way for ``/upload`` and ``forge files
upload``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Protocol, TextIO

from forge_cli.sanitize import sanitize

__all__ = [
    "DocumentInfo",
    "KnowledgePort",
    "ProgressFn",
    "ProgressLine",
    "SearchHit",
    "UploadResult",
    "VectorStoreInfo",
    "result_line",
]

ProgressFn = Callable[[int, int, str], None]
"""Called as ``progress(done, total, filename)`` after each file of a batch."""


@dataclass(frozen=True)
class VectorStoreInfo:
    """A vector store as listed."""

    id: str
    name: str = ""
    file_count: int | None = None


@dataclass(frozen=True)
class DocumentInfo:
    """A document (file) as listed."""

    id: str
    filename: str = ""


@dataclass(frozen=True)
class SearchHit:
    """One passage found by a search."""

    file_id: str
    filename: str
    score: float | None
    text: str


@dataclass(frozen=True)
class UploadResult:
    """What happened to one file of an upload: ``ok``, ``duplicate`` or ``rejected``."""

    filename: str
    status: str
    file_id: str | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """True when the file is in the store (new or a duplicate of a stored file)."""
        return self.status != "rejected"


def result_line(result: UploadResult) -> str:
    """``ok         file_1  notes.md`` / ``rejected   -  blob.bin: binary content`` (sanitised)."""
    reason = f": {result.reason}" if result.reason else ""
    return sanitize(
        f"{result.status:<9}  {result.file_id or '-'}  {result.filename}{reason}".replace("\n", " ")
    )


class KnowledgePort(Protocol):
    """Vector stores and files of the current backend."""

    async def list_vector_stores(self) -> list[VectorStoreInfo]:
        """Every vector store."""
        ...

    async def list_documents(self, vector_store_ids: list[str]) -> list[DocumentInfo]:
        """Documents of the given stores (all documents when the list is empty)."""
        ...

    async def upload(
        self, paths: list[Path], vector_store_id: str | None, progress: ProgressFn | None = None
    ) -> list[UploadResult]:
        """Upload ``paths`` (directories are walked), into ``vector_store_id`` when given.

        One result per file; a bad file is a ``rejected`` result, never an exception.
        """
        ...

    async def search(self, vector_store_ids: list[str], query: str) -> list[SearchHit]:
        """Search the given stores."""
        ...

    async def ensure_vector_store(self, name: str) -> str:
        """The id of the vector store called ``name``, created when there is none."""
        ...


class ProgressLine:
    """A one-line progress bar on a terminal stream, redrawn in place; silent elsewhere.

    Call it as a :data:`ProgressFn`; :meth:`close` (or leaving the ``with`` block) erases the
    line so the per-file results print cleanly. Drawn only when ``stream`` is a terminal and
    ``TERM`` is not ``dumb``, so pipes and logs never see carriage returns or escape codes.
    """

    _BAR = 24

    def __init__(
        self,
        stream: TextIO,
        *,
        ascii_only: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.stream = stream
        self.ascii_only = ascii_only
        env = os.environ if env is None else env
        self.enabled = _isatty(stream) and env.get("TERM", "").lower() != "dumb"
        self.drawn = 0
        """How many times the bar was drawn (for tests)."""

    def __call__(self, done: int, total: int, filename: str) -> None:
        if not self.enabled or total <= 0:
            return
        full, empty = ("#", "-") if self.ascii_only else ("█", "░")
        filled = self._BAR * min(done, total) // total
        text = f"{full * filled}{empty * (self._BAR - filled)} {done}/{total}  "
        width = shutil.get_terminal_size((80, 24)).columns - 1
        name = sanitize(filename.replace("\n", " "))
        line = (text + name)[: max(width, len(text))]
        self.stream.write(f"\r\x1b[2K{line}")
        self.stream.flush()
        self.drawn += 1

    def close(self) -> None:
        """Erase the bar (if it was drawn)."""
        if self.drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
