"""The knowledge store: vector stores, files and their membership, in one SQLite file.

:class:`KnowledgeStore` is the public, synchronous facade, assembled from one part per concept:
vector stores and membership (``vector_stores.py``), stored files (``files.py``), adding files
(``batch.py``) and the source paths files are known by (``sources.py``); retrieval lives here.
Each write is one transaction, so bad input leaves the store unchanged, and every failure is one
of our errors (``NotFoundError`` for an unknown id, ``UsageError`` for bad input,
``KnowledgeError`` otherwise).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from forge_cli.errors import UsageError
from forge_cli.knowledge import documents
from forge_cli.knowledge.base import DEFAULT_MAX_FILE_BYTES
from forge_cli.knowledge.batch import IngestOps
from forge_cli.knowledge.db import Database
from forge_cli.knowledge.embed.embedder import Embedder
from forge_cli.knowledge.files import FileOps
from forge_cli.knowledge.models import DocumentHit, FileText, Page, SearchHit
from forge_cli.knowledge.search import resolve_scope, search_chunks
from forge_cli.knowledge.sources import SourceOps
from forge_cli.knowledge.vector_stores import VectorStoreOps

if TYPE_CHECKING:
    from forge_cli.knowledge.embed.reembed import ReembedProgress, ReembedResult

__all__ = ["KnowledgeStore"]


class KnowledgeStore(VectorStoreOps, FileOps, IngestOps, SourceOps):
    """A local knowledge base: create vector stores, ingest files, search them.

    ``path`` is the SQLite file (the caller chooses it; see ``default_store_path()``).
    With an ``embedder``, chunk vectors are stored at ingest and searches fuse them with BM25.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        embedder: Embedder | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        if max_file_bytes < 1:
            raise UsageError("max_file_bytes must be positive")
        self._db = Database(os.fspath(path))
        self.embedder = embedder
        self.max_file_bytes = max_file_bytes

    @property
    def path(self) -> str:
        """The SQLite file of this store."""
        return self._db.path

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> KnowledgeStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def search(
        self,
        vector_store_ids: Sequence[str],
        query: str,
        *,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        filters: Mapping[str, object] | None = None,
        notes: list[str] | None = None,
    ) -> list[SearchHit]:
        """The chunks of the given vector stores that best answer ``query``, best first.

        Pass a list as ``notes`` to learn about degraded searches: when the embedder fails, the
        search answers from BM25 alone and appends a one-line note instead of raising.
        """
        with self._db.read() as conn:
            scope = resolve_scope(conn, vector_store_ids, filters)
            return search_chunks(
                conn,
                scope,
                query,
                max_num_results=max_num_results,
                score_threshold=score_threshold,
                embedder=self.embedder,
                notes=notes,
            )

    def list_documents(
        self,
        vector_store_ids: Sequence[str],
        query: str | None = None,
        *,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        deduplicate: bool = True,
        filters: Mapping[str, object] | None = None,
        notes: list[str] | None = None,
    ) -> list[DocumentHit]:
        """Documents of the given vector stores, ranked by ``query`` when one is given."""
        with self._db.read() as conn:
            scope = resolve_scope(conn, vector_store_ids, filters)
            return documents.list_documents(
                conn,
                scope,
                query,
                max_num_results=max_num_results,
                score_threshold=score_threshold,
                deduplicate=deduplicate,
                embedder=self.embedder,
                notes=notes,
            )

    def reembed(
        self, *, everything: bool = False, progress: ReembedProgress | None = None
    ) -> ReembedResult:
        """Give every chunk a vector of this store's embedder (see :func:`reembed`).

        Only chunks without a vector of the current model are embedded, unless ``everything``.
        """
        if self.embedder is None:
            raise UsageError("this store has no embedding model to re-embed with")
        from forge_cli.knowledge.embed.reembed import reembed

        return reembed(self._db, self.embedder, everything=everything, progress=progress)

    def read_file(self, file_id: str) -> FileText:
        """A document's whole extracted text, with its pages."""
        with self._db.read() as conn:
            return documents.read_file(conn, file_id)

    def read_pages(self, file_id: str, start_page: int, end_page: int | None = None) -> list[Page]:
        """Pages ``start_page..end_page`` (1-based, inclusive) of a document."""
        with self._db.read() as conn:
            return documents.read_pages(conn, file_id, start_page, end_page)
