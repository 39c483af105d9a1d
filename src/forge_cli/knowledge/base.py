"""The state every part of :class:`~forge_cli.knowledge.store.KnowledgeStore` shares.

The store is assembled from one mixin per concept (vector stores and membership, files, batch
ingest); each declares what it uses by deriving from :class:`StoreBase`.
"""

from __future__ import annotations

from forge_cli.knowledge.db import Database
from forge_cli.knowledge.embedding import Embedder

__all__ = ["StoreBase"]


class StoreBase:
    """The database connection, the optional embedder and the ingest size limit."""

    _db: Database
    embedder: Embedder | None
    max_file_bytes: int
