"""The knowledge seam of the REPL: what /vs, /upload, /docs and /search need from a backend.

The CLI adapts the backend's knowledge client to this Protocol; tests pass a fake.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["DocumentInfo", "KnowledgePort", "SearchHit", "VectorStoreInfo"]


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


class KnowledgePort(Protocol):
    """Vector stores and files of the current backend."""

    async def list_vector_stores(self) -> list[VectorStoreInfo]:
        """Every vector store."""
        ...

    async def list_documents(self, vector_store_ids: list[str]) -> list[DocumentInfo]:
        """Documents of the given stores (all documents when the list is empty)."""
        ...

    async def upload(self, path: Path, vector_store_id: str | None) -> DocumentInfo:
        """Upload ``path`` and, when given, add it to ``vector_store_id``."""
        ...

    async def search(self, vector_store_ids: list[str], query: str) -> list[SearchHit]:
        """Search the given stores."""
        ...
