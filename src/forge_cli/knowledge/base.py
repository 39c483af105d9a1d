"""The state every part of :class:`~forge_cli.knowledge.store.KnowledgeStore` shares.

The store is assembled from one mixin per concept (vector stores and membership, files, batch
ingest); each declares what it uses by deriving from :class:`StoreBase`.
"""

from __future__ import annotations

from forge_cli.knowledge.db import Database
from forge_cli.knowledge.embed.embedder import Embedder

__all__ = ["DEFAULT_MAX_FILE_BYTES", "StoreBase"]

DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024
"""Files larger than this (50 MiB) are rejected unless the store is configured otherwise."""


class StoreBase:
    """The database connection, the optional embedder and the ingest size limit."""

    _db: Database
    embedder: Embedder | None
    max_file_bytes: int
