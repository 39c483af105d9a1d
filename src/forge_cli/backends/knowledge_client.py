"""The knowledge client seam: files and vector stores, the same for local and remote backends.

``forge vs ...`` and ``forge files ...`` talk to a :class:`KnowledgeClient`; the local one wraps
the :class:`KnowledgeStore` directly, the HTTP one (:mod:`forge_cli.backends.knowledge_http`)
speaks ``/v1/files`` and ``/v1/vector_stores`` to ``forge serve``, Knowledge Forge or OpenAI.
Both return the knowledge package's typed records and raise our errors (``NotFoundError`` for an
unknown id, ``UsageError`` for bad input).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from forge_cli.errors import NotFoundError
from forge_cli.knowledge import (
    BatchReport,
    FileRecord,
    KnowledgeStore,
    ProgressCallback,
    SearchHit,
    VectorStore,
    VectorStoreFile,
    ensure_seed_store,
)

__all__ = ["KnowledgeClient", "LocalKnowledgeClient", "resolve_vector_store"]

PathLike = str | os.PathLike[str]


@runtime_checkable
class KnowledgeClient(Protocol):
    """Manages files and vector stores of one backend."""

    name: str
    """``"local"`` or the base URL of the server."""

    async def create_vector_store(
        self,
        name: str,
        *,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """Create an empty vector store."""
        ...

    async def list_vector_stores(self) -> list[VectorStore]:
        """Every vector store."""
        ...

    async def get_vector_store(self, vector_store_id: str) -> VectorStore:
        """One vector store by id (``NotFoundError`` when unknown)."""
        ...

    async def update_vector_store(
        self,
        vector_store_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """Rename or describe a vector store."""
        ...

    async def delete_vector_store(self, vector_store_id: str) -> None:
        """Delete a vector store (its files stay)."""
        ...

    async def upload_files(
        self,
        paths: Sequence[PathLike],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
        progress: ProgressCallback | None = None,
    ) -> BatchReport:
        """Upload files (directories are walked), optionally into a vector store.

        A bad file never stops the batch: it is reported with its reason in the result.
        """
        ...

    async def list_files(self) -> list[FileRecord]:
        """Every file."""
        ...

    async def get_file(self, file_id: str) -> FileRecord:
        """One file by id."""
        ...

    async def delete_file(self, file_id: str) -> None:
        """Delete a file (and its memberships)."""
        ...

    async def add_file(
        self,
        vector_store_id: str,
        file_id: str,
        *,
        attributes: Mapping[str, object] | None = None,
    ) -> VectorStoreFile:
        """Attach an uploaded file to a vector store."""
        ...

    async def remove_file(self, vector_store_id: str, file_id: str) -> None:
        """Detach a file from a vector store."""
        ...

    async def list_vector_store_files(self, vector_store_id: str) -> list[VectorStoreFile]:
        """The files of a vector store."""
        ...

    async def search(
        self,
        vector_store_id: str,
        query: str,
        *,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        filters: Mapping[str, object] | None = None,
    ) -> list[SearchHit]:
        """The passages of a vector store that best match ``query``."""
        ...

    async def aclose(self) -> None:
        """Release connections or the store."""
        ...


async def resolve_vector_store(client: KnowledgeClient, ref: str) -> VectorStore:
    """A vector store by id, or else by exact name (so users may type ``forge vs show docs``)."""
    try:
        return await client.get_vector_store(ref)
    except NotFoundError:
        for store in await client.list_vector_stores():
            if store.name == ref:
                return store
        raise NotFoundError(f"no vector store with id or name {ref!r}") from None


class LocalKnowledgeClient:
    """The local knowledge store behind the :class:`KnowledgeClient` seam.

    Calls are quick local SQLite work and run inline. With ``seed`` (the default) the bundled
    ``forge-docs`` store is created on first use, as the local engine does.
    """

    name = "local"

    def __init__(
        self, store: KnowledgeStore, *, seed: bool = True, owns_store: bool = False
    ) -> None:
        self.store = store
        self._seeded = not seed
        self._owns_store = owns_store

    def _ready(self) -> KnowledgeStore:
        if not self._seeded:
            ensure_seed_store(self.store)
            self._seeded = True
        return self.store

    async def create_vector_store(
        self,
        name: str,
        *,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """Create an empty vector store."""
        return self._ready().create_vector_store(name, description=description, metadata=metadata)

    async def list_vector_stores(self) -> list[VectorStore]:
        """Every vector store, oldest first."""
        return self._ready().list_vector_stores()

    async def get_vector_store(self, vector_store_id: str) -> VectorStore:
        """One vector store by id."""
        return self._ready().get_vector_store(vector_store_id)

    async def update_vector_store(
        self,
        vector_store_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """Rename or describe a vector store."""
        return self._ready().update_vector_store(
            vector_store_id, name=name, description=description, metadata=metadata
        )

    async def delete_vector_store(self, vector_store_id: str) -> None:
        """Delete a vector store."""
        self._ready().delete_vector_store(vector_store_id)

    async def upload_files(
        self,
        paths: Sequence[PathLike],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
        progress: ProgressCallback | None = None,
    ) -> BatchReport:
        """Ingest files; each bad file is reported, the rest go in."""
        return self._ready().ingest_paths(
            paths, vector_store_id=vector_store_id, attributes=attributes, progress=progress
        )

    async def list_files(self) -> list[FileRecord]:
        """Every file."""
        return self._ready().list_files()

    async def get_file(self, file_id: str) -> FileRecord:
        """One file by id."""
        return self._ready().get_file(file_id)

    async def delete_file(self, file_id: str) -> None:
        """Delete a file."""
        self._ready().delete_file(file_id)

    async def add_file(
        self,
        vector_store_id: str,
        file_id: str,
        *,
        attributes: Mapping[str, object] | None = None,
    ) -> VectorStoreFile:
        """Attach a file to a vector store."""
        return self._ready().attach_file(vector_store_id, file_id, attributes=attributes)

    async def remove_file(self, vector_store_id: str, file_id: str) -> None:
        """Detach a file from a vector store."""
        self._ready().detach_file(vector_store_id, file_id)

    async def list_vector_store_files(self, vector_store_id: str) -> list[VectorStoreFile]:
        """The files of a vector store."""
        return self._ready().list_vector_store_files(vector_store_id)

    async def search(
        self,
        vector_store_id: str,
        query: str,
        *,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        filters: Mapping[str, object] | None = None,
    ) -> list[SearchHit]:
        """Search one vector store."""
        return self._ready().search(
            [vector_store_id],
            query,
            max_num_results=max_num_results,
            score_threshold=score_threshold,
            filters=filters,
        )

    async def aclose(self) -> None:
        """Close the store when this client owns it."""
        if self._owns_store:
            self._owns_store = False
            self.store.close()
