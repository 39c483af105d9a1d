"""The one knowledge seam: files and vector stores, the same for local and remote backends.

``forge vs ...``, ``forge files ...`` and the chat session's ``/vs``, ``/upload``, ``/docs`` and
``/search`` all talk to a :class:`KnowledgeClient`; the local one wraps the
:class:`KnowledgeStore` directly, the HTTP one (:mod:`forge_cli.backends.knowledge_http`) speaks
``/v1/files`` and ``/v1/vector_stores`` to ``forge serve``, Knowledge Forge or OpenAI. Both return
this package's typed records (:class:`VectorStore`, :class:`FileRecord`, :class:`SearchHit`,
:class:`IngestResult`, ...) -- the same records the client tools and the engine get from the
store -- and raise our errors (``NotFoundError`` for an unknown id, ``UsageError`` for bad input).

The helpers below (:func:`resolve_vector_store`, :func:`ensure_vector_store`,
:func:`search_stores`, :func:`list_documents`, :func:`attach_file`) are written once over the
Protocol, so every front end resolves names and merges results the same way. Nothing here imports
an HTTP stack: building the local client stays light (``forge vs search`` on a local store).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from forge_cli.errors import NotFoundError, UsageError
from forge_cli.knowledge.models import (
    BatchReport,
    FileRecord,
    IngestResult,
    ProgressCallback,
    SearchHit,
    VectorStore,
    VectorStoreFile,
)
from forge_cli.knowledge.seed import ensure_seed_store
from forge_cli.knowledge.sources import SourceFile
from forge_cli.knowledge.store import KnowledgeStore

__all__ = [
    "KnowledgeClient",
    "LocalKnowledgeClient",
    "PathLike",
    "attach_file",
    "create_named_vector_store",
    "ensure_vector_store",
    "list_documents",
    "resolve_vector_store",
    "search_stores",
]

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
        by_path: bool = False,
    ) -> BatchReport:
        """Upload files (directories are walked), optionally into a vector store.

        A bad file never stops the batch: it is reported with its reason in the result. With
        ``by_path`` (``forge vs add``, ``vs create``, ``vs sync``) a file is known in the vector
        store by its path: a path the store holds already is ``unchanged`` (same content) or
        ``replaced`` (the old version leaves the store).
        """
        ...

    async def list_sources(self, vector_store_id: str) -> list[SourceFile]:
        """The source paths of a vector store's files, with their content hash, size and mtime."""
        ...

    async def remove_sources(
        self, vector_store_id: str, paths: Sequence[str], file_ids: Sequence[str] = ()
    ) -> None:
        """Remove these source paths (and the files only they held) from a vector store, and
        the members ``file_ids`` that no path holds (files added before they had a path)."""
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
        named = [store for store in await client.list_vector_stores() if store.name == ref]
        if len(named) > 1:
            ids = ", ".join(store.id for store in named)
            raise UsageError(
                f"{len(named)} vector stores are named {ref!r} ({ids}); give the id"
            ) from None
        if named:
            return named[0]
        raise NotFoundError(f"no vector store with id or name {ref!r}") from None


async def create_named_vector_store(client: KnowledgeClient, name: str) -> VectorStore:
    """Create a vector store called ``name``, refusing a name a store has already (names are
    unique, so a name means one store; a server that allows twins is asked first)."""
    wanted = name.strip()
    taken = [store for store in await client.list_vector_stores() if store.name == wanted]
    if taken:
        raise UsageError(
            f"a vector store named {wanted!r} exists already ({taken[0].id})",
            hint="choose another name, or use that store",
        )
    return await client.create_vector_store(name)


async def ensure_vector_store(client: KnowledgeClient, name: str) -> VectorStore:
    """The vector store with id or name ``name``, created (under that name) when there is none."""
    try:
        return await resolve_vector_store(client, name)
    except NotFoundError:
        return await client.create_vector_store(name)


async def list_documents(
    client: KnowledgeClient, refs: Sequence[str]
) -> list[FileRecord | VectorStoreFile]:
    """The documents of the stores ``refs`` (ids or names); every file when ``refs`` is empty."""
    if not refs:
        return list(await client.list_files())
    docs: list[FileRecord | VectorStoreFile] = []
    for ref in refs:
        store = await resolve_vector_store(client, ref)
        docs.extend(await client.list_vector_store_files(store.id))
    return docs


async def search_stores(
    client: KnowledgeClient, refs: Sequence[str], query: str, *, max_num_results: int = 10
) -> list[SearchHit]:
    """Search several stores (ids or names) and merge the hits, best score first."""
    if not refs:
        raise UsageError("no active vector store", hint="/vs use ID first")
    hits: list[SearchHit] = []
    for ref in refs:
        store = await resolve_vector_store(client, ref)
        hits.extend(await client.search(store.id, query, max_num_results=max_num_results))
    return sorted(hits, key=lambda hit: -hit.score)[:max_num_results]


async def attach_file(client: KnowledgeClient, store_id: str, file_id: str) -> IngestResult:
    """Attach an uploaded file to a store; an unknown file id is a ``rejected`` result."""
    try:
        record = await client.get_file(file_id)
    except NotFoundError:
        return IngestResult(
            filename=file_id, status="rejected", reason="no such file or uploaded file id"
        )
    await client.add_file(store_id, file_id)
    return IngestResult(filename=record.filename, status="ok", file=record)


class LocalKnowledgeClient:
    """The local knowledge store behind the :class:`KnowledgeClient` seam.

    Calls are quick local SQLite work and run inline. ``store`` is an open store or a function
    that opens one: then the store is opened on first use (and closed by :meth:`aclose`), so a
    chat session that never touches its documents never opens them. With ``seed`` (the default)
    the bundled ``forge-docs`` store is created on first use, as the local engine does.
    """

    name = "local"

    def __init__(
        self,
        store: KnowledgeStore | Callable[[], KnowledgeStore],
        *,
        seed: bool = True,
        owns_store: bool = False,
    ) -> None:
        if isinstance(store, KnowledgeStore):
            self._store: KnowledgeStore | None = store
            self._open: Callable[[], KnowledgeStore] | None = None
        else:
            self._store, self._open = None, store
            owns_store = True
        self._seeded = not seed
        self._owns_store = owns_store

    @property
    def store(self) -> KnowledgeStore:
        """The store, opened now if it was given as an opener."""
        if self._store is None:
            assert self._open is not None
            self._store = self._open()
        return self._store

    def _ready(self) -> KnowledgeStore:
        store = self.store
        if not self._seeded:
            ensure_seed_store(store)
            self._seeded = True
        return store

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
        by_path: bool = False,
    ) -> BatchReport:
        """Ingest files; each bad file is reported, the rest go in."""
        return self._ready().ingest_paths(
            paths,
            vector_store_id=vector_store_id,
            attributes=attributes,
            progress=progress,
            by_path=by_path,
        )

    async def list_sources(self, vector_store_id: str) -> list[SourceFile]:
        """The source paths of a vector store."""
        return self._ready().list_sources(vector_store_id)

    async def remove_sources(
        self, vector_store_id: str, paths: Sequence[str], file_ids: Sequence[str] = ()
    ) -> None:
        """Remove source paths and pathless members from a vector store, in one transaction."""
        self._ready().remove_sources(vector_store_id, paths, file_ids)

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
        if self._owns_store and self._store is not None:
            self._owns_store = False
            self._store.close()
