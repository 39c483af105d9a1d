"""Vector store file batches and parsed file content on ``forge serve``.

- ``/v1/vector_stores/{vs_id}/file_batches`` (create, retrieve, cancel, list files): the SDK's
  ``vector_stores.file_batches.*`` and ``upload_and_poll``. Files are extracted and chunked when
  they are uploaded, so attaching a batch is quick and done before the create call returns: a
  batch is ``completed`` at once, and cancelling it afterwards changes nothing.
- ``GET /v1/vector_stores/{vs_id}/files/{file_id}/content``: the text Forge extracted, page by
  page (``vector_stores.files.content``).

Batches are kept in memory for the life of the server, as OpenAI keeps them only for polling.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request as HTTPRequest
from starlette.routing import Route

from forge_cli.engine import wire
from forge_cli.engine.http_bodies import paged, read_json, run_sync
from forge_cli.engine.safe_json import JSONResponse
from forge_cli.errors import NotFoundError, UsageError
from forge_cli.knowledge import KnowledgeStore

__all__ = ["batch_routes"]

_MAX_BATCHES = 1024


@dataclass
class _Batch:
    id: str
    vector_store_id: str
    file_ids: list[str]
    failed: list[str] = field(default_factory=list)
    created_at: int = field(default_factory=lambda: int(time.time()))

    def wire(self) -> dict[str, Any]:
        done = len(self.file_ids) - len(self.failed)
        return {
            "id": self.id,
            "object": "vector_store.files_batch",
            "created_at": self.created_at,
            "vector_store_id": self.vector_store_id,
            "status": "completed" if done or not self.failed else "failed",
            "file_counts": {
                "in_progress": 0,
                "completed": done,
                "failed": len(self.failed),
                "cancelled": 0,
                "total": len(self.file_ids),
            },
        }


def _entries(body: dict[str, Any]) -> list[tuple[str, dict[str, Any] | None]]:
    """(file id, attributes) pairs from ``file_ids`` (+ shared ``attributes``) or ``files``."""
    shared = body.get("attributes")
    if shared is not None and not isinstance(shared, dict):
        raise UsageError("attributes must be an object")
    entries: list[tuple[str, dict[str, Any] | None]] = []
    for key in ("file_ids", "files"):
        if not isinstance(body.get(key) or [], list):
            raise UsageError(f"{key} must be a list")
    for file_id in body.get("file_ids") or []:
        if not isinstance(file_id, str):
            raise UsageError("file_ids must be a list of strings")
        entries.append((file_id, shared))
    for n, spec in enumerate(body.get("files") or []):
        if not isinstance(spec, dict) or not isinstance(spec.get("file_id"), str):
            raise UsageError(f"files.{n}.file_id is required")
        attributes = spec.get("attributes", shared)
        if attributes is not None and not isinstance(attributes, dict):
            raise UsageError(f"files.{n}.attributes must be an object")
        entries.append((spec["file_id"], attributes))
    if not entries:
        raise UsageError("file_ids (or files) must name at least one file")
    return entries


class BatchRoutes:
    """File batches of one store's vector stores."""

    def __init__(self, store: KnowledgeStore) -> None:
        self.store = store
        self._batches: dict[str, _Batch] = {}

    def routes(self) -> list[Route]:
        """The starlette routes."""
        base = "/v1/vector_stores/{vs_id}/file_batches"
        return [
            Route(base, self.create, methods=["POST"]),
            Route(base + "/{batch_id}", self.retrieve, methods=["GET"]),
            Route(base + "/{batch_id}/cancel", self.cancel, methods=["POST"]),
            Route(base + "/{batch_id}/files", self.list_files, methods=["GET"]),
            Route("/v1/vector_stores/{vs_id}/files/{file_id}/content", self.content),
        ]

    async def create(self, request: HTTPRequest) -> JSONResponse:
        """Attach every file of the batch (unknown files are refused before any is attached)."""
        vs_id = request.path_params["vs_id"]
        entries = _entries(await read_json(request))

        def attach_all() -> _Batch:
            self.store.get_vector_store(vs_id)
            for file_id, _ in entries:
                self.store.get_file(file_id)
            batch = _Batch(f"vsfb_{uuid.uuid4().hex}", vs_id, [f for f, _ in entries])
            for file_id, attributes in entries:
                try:
                    self.store.attach_file(vs_id, file_id, attributes=attributes)
                except UsageError:
                    batch.failed.append(file_id)
            return batch

        batch = await run_sync(attach_all)
        self._batches[batch.id] = batch
        while len(self._batches) > _MAX_BATCHES:
            self._batches.pop(next(iter(self._batches)))
        return JSONResponse(batch.wire())

    def _batch(self, request: HTTPRequest) -> _Batch:
        batch = self._batches.get(request.path_params["batch_id"])
        if batch is None or batch.vector_store_id != request.path_params["vs_id"]:
            raise NotFoundError(f"no file batch {request.path_params['batch_id']!r}")
        return batch

    async def retrieve(self, request: HTTPRequest) -> JSONResponse:
        """``GET …/file_batches/{batch_id}``."""
        return JSONResponse(self._batch(request).wire())

    async def cancel(self, request: HTTPRequest) -> JSONResponse:
        """``POST …/cancel``: batches finish when created, so there is nothing left to stop."""
        return JSONResponse(self._batch(request).wire())

    async def list_files(self, request: HTTPRequest) -> JSONResponse:
        """``GET …/files``: the batch's files as vector store files (``filter`` by status)."""
        batch = self._batch(request)
        wanted = request.query_params.get("filter")
        ids = set(batch.file_ids) - set(batch.failed)
        members = await run_sync(lambda: self.store.list_vector_store_files(batch.vector_store_id))
        rows = [wire.vector_store_file_object(m) for m in members if m.file_id in ids]
        if wanted:
            rows = [row for row in rows if row.get("status") == wanted]
        return paged(request, rows)

    async def content(self, request: HTTPRequest) -> JSONResponse:
        """The extracted text of a file in a vector store, one text part per page."""
        vs_id, file_id = request.path_params["vs_id"], request.path_params["file_id"]

        def read() -> list[dict[str, Any]]:
            self.store.get_vector_store_file(vs_id, file_id)
            document = self.store.read_file(file_id)
            if document.paged and document.pages:
                return [{"type": "text", "text": page.text} for page in document.pages]
            return [{"type": "text", "text": document.text}]

        parts = await run_sync(read)
        return JSONResponse(
            {
                "object": "vector_store.file_content.page",
                "data": parts,
                "has_more": False,
                "next_page": None,
            }
        )


def batch_routes(store: KnowledgeStore) -> list[Route]:
    """The file-batch and file-content routes for ``store``."""
    return BatchRoutes(store).routes()
