"""The knowledge client of a run (local store or HTTP server), its adapter for the REPL, and the
batch-upload steps ``forge vs``/``forge files`` share (progress bar, per-file results)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from forge_cli.config import Settings
from forge_cli.errors import KnowledgeError, NotFoundError, UsageError
from forge_cli.repl.knowledge import (
    DocumentInfo,
    ProgressFn,
    ProgressLine,
    SearchHit,
    UploadResult,
    VectorStoreInfo,
)

__all__ = [
    "KnowledgeAdapter",
    "attach_file",
    "build_knowledge_client",
    "check_upload_paths",
    "fail_if_rejected",
    "upload_result",
    "upload_with_progress",
]


def build_knowledge_client(settings: Settings) -> Any:
    """A ``KnowledgeClient`` for the backend the settings name."""
    if settings.api == "local":
        from forge_cli.backends.knowledge_client import LocalKnowledgeClient
        from forge_cli.cli.build import engine_config
        from forge_cli.engine import open_store

        return LocalKnowledgeClient(open_store(None, engine_config(settings)), owns_store=True)
    if settings.api == "chat":
        raise UsageError(
            "the chat API has no document store",
            hint="use --api local, responses or knowledge-forge",
        )
    from forge_cli.backends.knowledge_http import HttpKnowledgeClient
    from forge_cli.cli.build import DEFAULT_BASE_URLS, api_key_env

    return HttpKnowledgeClient(
        settings.base_url or DEFAULT_BASE_URLS[settings.api],
        api_key_env=api_key_env(settings),
        api_key=settings.api_key,
        timeout=settings.timeout,
    )


def upload_result(result: Any) -> UploadResult:
    """A knowledge ``IngestResult`` as the REPL's :class:`UploadResult`."""
    record = getattr(result, "file", None)
    return UploadResult(
        filename=str(result.filename),
        status=str(result.status),
        file_id=record.id if record is not None else None,
        reason=result.reason,
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

    async def _ids(self, refs: Sequence[str]) -> list[str]:
        """Vector store ids for ``refs`` given by id or by name (as ``/vs use`` accepts)."""
        from forge_cli.backends.knowledge_client import resolve_vector_store

        return [(await resolve_vector_store(self.client, ref)).id for ref in refs]

    async def list_vector_stores(self) -> list[VectorStoreInfo]:
        stores = await self.client.list_vector_stores()
        return [VectorStoreInfo(s.id, s.name, s.file_counts.total) for s in stores]

    async def list_documents(self, vector_store_ids: list[str]) -> list[DocumentInfo]:
        if not vector_store_ids:
            return [DocumentInfo(f.id, f.filename) for f in await self.client.list_files()]
        docs: list[DocumentInfo] = []
        for vs in await self._ids(vector_store_ids):
            for entry in await self.client.list_vector_store_files(vs):
                docs.append(DocumentInfo(entry.file_id, entry.filename))
        return docs

    async def upload(
        self,
        paths: Sequence[Path],
        vector_store_id: str | None,
        progress: ProgressFn | None = None,
    ) -> list[UploadResult]:
        """Upload ``paths`` (a store may be named by id or name); one result per file."""
        if vector_store_id is not None:
            vector_store_id = (await self._ids([vector_store_id]))[0]
        report = await self.client.upload_files(
            list(paths), vector_store_id=vector_store_id, progress=progress
        )
        return [upload_result(result) for result in report.results]

    async def ensure_vector_store(self, name: str) -> str:
        from forge_cli.backends.knowledge_client import resolve_vector_store
        from forge_cli.errors import NotFoundError

        try:
            return (await resolve_vector_store(self.client, name)).id
        except NotFoundError:
            created = await self.client.create_vector_store(name)
            return str(created.id)

    async def search(self, vector_store_ids: list[str], query: str) -> list[SearchHit]:
        if not vector_store_ids:
            raise UsageError("no active vector store", hint="/vs use ID first")
        hits: list[SearchHit] = []
        for vs in await self._ids(vector_store_ids):
            for hit in await self.client.search(vs, query):
                hits.append(SearchHit(hit.file_id, hit.filename, hit.score, hit.snippet))
        return sorted(hits, key=lambda h: -(h.score or 0.0))


def check_upload_paths(paths: Sequence[str]) -> None:
    """Refuse a batch with nothing to upload (e.g. a directory without supported files)."""
    from forge_cli.knowledge.ingest import expand_paths

    if paths and not expand_paths(paths):
        raise UsageError(
            "no supported files in " + ", ".join(paths),
            hint="supported: text, Markdown, HTML, PDF, source code, JSON, CSV",
        )


async def upload_with_progress(
    client: Any, paths: Sequence[str], store_id: str | None
) -> list[UploadResult]:
    """Upload with a progress bar on a terminal's stderr; one result per file."""
    with ProgressLine(sys.stderr) as progress:
        report = await client.upload_files(list(paths), vector_store_id=store_id, progress=progress)
    return [upload_result(result) for result in report.results]


def fail_if_rejected(results: Sequence[UploadResult]) -> None:
    """Raise ``KnowledgeError`` (exit 1) when any file of the batch was rejected."""
    rejected = sum(1 for r in results if not r.ok)
    if rejected:
        raise KnowledgeError(f"{rejected} of {len(results)} file(s) could not be added")


async def attach_file(client: Any, store_id: str, file_id: str) -> UploadResult:
    """Attach an uploaded file to a store; an unknown file id is a ``rejected`` result."""
    try:
        member = await client.add_file(store_id, file_id)
    except NotFoundError:
        return UploadResult(
            filename=file_id, status="rejected", reason="no such file or uploaded file id"
        )
    return UploadResult(filename=member.filename, status="ok", file_id=member.file_id)
