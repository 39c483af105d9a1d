"""The knowledge client of a run (local store or HTTP server) and its adapter for the REPL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from forge_cli.config import Settings
from forge_cli.errors import KnowledgeError, UsageError
from forge_cli.repl.knowledge import DocumentInfo, SearchHit, VectorStoreInfo

__all__ = ["KnowledgeAdapter", "build_knowledge_client"]


def build_knowledge_client(settings: Settings) -> Any:
    """A ``KnowledgeClient`` for the backend the settings name."""
    if settings.api == "local":
        from forge_cli.backends.knowledge_client import LocalKnowledgeClient
        from forge_cli.knowledge import KnowledgeStore, default_store_path

        return LocalKnowledgeClient(KnowledgeStore(default_store_path()), owns_store=True)
    if settings.api == "chat":
        raise UsageError("the chat API has no document store", hint="use --api local or responses")
    from forge_cli.backends.knowledge_http import HttpKnowledgeClient
    from forge_cli.cli.build import DEFAULT_BASE_URLS

    return HttpKnowledgeClient(
        settings.base_url or DEFAULT_BASE_URLS["responses"],
        api_key_env=settings.api_key_env or "FORGE_API_KEY",
        api_key=settings.api_key,
        timeout=settings.timeout,
    )


class KnowledgeAdapter:
    """Presents a ``KnowledgeClient`` as the REPL's :class:`~forge_cli.repl.KnowledgePort`."""

    def __init__(self, make_client: Callable[[], Any]) -> None:
        self._make_client = make_client
        self._client: Any = None

    @property
    def client(self) -> Any:
        """The knowledge client, created on first use (opening a store costs time)."""
        if self._client is None:
            self._client = self._make_client()
        return self._client

    async def aclose(self) -> None:
        """Close the client if it was created."""
        if self._client is not None:
            await self._client.aclose()

    async def list_vector_stores(self) -> list[VectorStoreInfo]:
        stores = await self.client.list_vector_stores()
        return [VectorStoreInfo(s.id, s.name, s.file_counts.total) for s in stores]

    async def list_documents(self, vector_store_ids: list[str]) -> list[DocumentInfo]:
        if not vector_store_ids:
            return [DocumentInfo(f.id, f.filename) for f in await self.client.list_files()]
        docs: list[DocumentInfo] = []
        for vs in vector_store_ids:
            for entry in await self.client.list_vector_store_files(vs):
                file_id = getattr(entry, "file_id", None) or getattr(entry, "id", "")
                docs.append(DocumentInfo(str(file_id), str(getattr(entry, "filename", "") or "")))
        return docs

    async def upload(self, path: Path, vector_store_id: str | None) -> DocumentInfo:
        report = await self.client.upload_files([path], vector_store_id=vector_store_id)
        result = report.results[0]
        if not result.ok or result.file is None:
            raise KnowledgeError(f"{path.name} was rejected: {result.reason or 'unknown reason'}")
        return DocumentInfo(result.file.id, result.file.filename)

    async def search(self, vector_store_ids: list[str], query: str) -> list[SearchHit]:
        if not vector_store_ids:
            raise UsageError("no active vector store", hint="/vs use ID first")
        hits: list[SearchHit] = []
        for vs in vector_store_ids:
            for hit in await self.client.search(vs, query):
                hits.append(SearchHit(hit.file_id, hit.filename, hit.score, hit.snippet))
        return sorted(hits, key=lambda h: -(h.score or 0.0))
