"""``/v1/files`` and ``/v1/vector_stores`` routes of ``forge serve`` over the knowledge store.

:class:`KnowledgeRoutes` has one method per route. Store calls are synchronous SQLite work and run
in a worker thread. Errors are raised as our own exceptions; the app's handlers turn them into
OpenAI-shaped JSON errors.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.requests import Request as HTTPRequest
from starlette.responses import Response
from starlette.routing import Route

from forge_cli.engine import wire
from forge_cli.engine.http_bodies import paged, read_json, run_sync, str_dict
from forge_cli.engine.multipart import MultipartLimits, read_multipart
from forge_cli.engine.safe_json import JSONResponse
from forge_cli.errors import UsageError
from forge_cli.knowledge import KnowledgeStore

__all__ = ["KnowledgeRoutes", "knowledge_routes", "read_json"]

_MULTIPART_SLACK = 64 * 1024


class KnowledgeRoutes:
    """The files and vector store endpoints, bound to one store."""

    def __init__(self, store: KnowledgeStore) -> None:
        self.store = store

    def routes(self) -> list[Route]:
        """The starlette routes, in matching order."""
        store_path = "/v1/vector_stores/{vs_id}"
        member_path = f"{store_path}/files/{{file_id}}"
        return [
            Route("/v1/files", self.upload_file, methods=["POST"]),
            Route("/v1/files", self.list_files, methods=["GET"]),
            Route("/v1/files/{file_id}", self.get_file, methods=["GET"]),
            Route("/v1/files/{file_id}", self.delete_file, methods=["DELETE"]),
            Route("/v1/files/{file_id}/content", self.file_content, methods=["GET"]),
            Route("/v1/vector_stores", self.create_store, methods=["POST"]),
            Route("/v1/vector_stores", self.list_stores, methods=["GET"]),
            Route(store_path, self.get_store, methods=["GET"]),
            Route(store_path, self.update_store, methods=["POST"]),
            Route(store_path, self.delete_store, methods=["DELETE"]),
            Route(f"{store_path}/files", self.add_store_file, methods=["POST"]),
            Route(f"{store_path}/files", self.list_store_files, methods=["GET"]),
            Route(member_path, self.get_store_file, methods=["GET"]),
            Route(member_path, self.update_store_file, methods=["POST"]),
            Route(member_path, self.remove_store_file, methods=["DELETE"]),
            Route(f"{store_path}/search", self.search_store, methods=["POST"]),
        ]

    # -- files ---------------------------------------------------------------------------

    async def upload_file(self, request: HTTPRequest) -> JSONResponse:
        """``POST /v1/files``: a multipart upload, ingested at once."""
        limit = self.store.max_file_bytes
        if int(request.headers.get("content-length") or 0) > limit + _MULTIPART_SLACK:
            raise UsageError(f"the upload is larger than the limit of {limit} bytes")
        form = await read_multipart(
            request.headers.get("content-type", ""),
            request.stream(),
            MultipartLimits(max_body_bytes=limit + _MULTIPART_SLACK),
        )
        if "file" not in form.files:
            raise UsageError("the upload has no 'file' part")
        filename, content = form.files["file"]
        result = await run_sync(lambda: self.store.add_file(content, filename))
        assert result.file is not None
        return JSONResponse(wire.file_object(result.file))

    async def list_files(self, request: HTTPRequest) -> JSONResponse:
        """``GET /v1/files``."""
        files = await run_sync(self.store.list_files)
        return paged(request, [wire.file_object(f) for f in files])

    async def get_file(self, request: HTTPRequest) -> JSONResponse:
        """``GET /v1/files/{file_id}``."""
        file_id = request.path_params["file_id"]
        return JSONResponse(wire.file_object(await run_sync(lambda: self.store.get_file(file_id))))

    async def file_content(self, request: HTTPRequest) -> Response:
        """``GET /v1/files/{file_id}/content``: the original bytes, as a download.

        A stored HTML page must not run in a browser with the API's origin (it could read and
        write every document): the answer is an attachment, not sniffed, and sandboxed.
        """
        file_id = request.path_params["file_id"]
        record = await run_sync(lambda: self.store.get_file(file_id))
        data = await run_sync(lambda: self.store.get_file_content(file_id))
        headers = {
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(record.filename)}",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox; default-src 'none'",
        }
        media_type = record.mime_type or "application/octet-stream"
        return Response(data, media_type=media_type, headers=headers)

    async def delete_file(self, request: HTTPRequest) -> JSONResponse:
        """``DELETE /v1/files/{file_id}``."""
        file_id = request.path_params["file_id"]
        await run_sync(lambda: self.store.delete_file(file_id))
        return JSONResponse(wire.deleted("file", file_id))

    # -- vector stores -------------------------------------------------------------------

    async def create_store(self, request: HTTPRequest) -> JSONResponse:
        """``POST /v1/vector_stores``."""
        body = await read_json(request)
        name = _optional_str(body, "name") or "untitled"
        description = _optional_str(body, "description")
        file_ids = body.get("file_ids") or []
        if not isinstance(file_ids, list):
            raise UsageError("file_ids must be a list of file ids")
        created = await run_sync(
            lambda: self.store.create_vector_store(
                name,
                description=description,
                metadata=str_dict(body.get("metadata"), "metadata"),
                file_ids=[str(f) for f in file_ids],
            )
        )
        return JSONResponse(wire.vector_store_object(created))

    async def list_stores(self, request: HTTPRequest) -> JSONResponse:
        """``GET /v1/vector_stores``."""
        stores = await run_sync(self.store.list_vector_stores)
        return paged(request, [wire.vector_store_object(s) for s in stores])

    async def get_store(self, request: HTTPRequest) -> JSONResponse:
        """``GET /v1/vector_stores/{vs_id}``."""
        vs_id = request.path_params["vs_id"]
        found = await run_sync(lambda: self.store.get_vector_store(vs_id))
        return JSONResponse(wire.vector_store_object(found))

    async def update_store(self, request: HTTPRequest) -> JSONResponse:
        """``POST /v1/vector_stores/{vs_id}``: name, description or metadata."""
        vs_id = request.path_params["vs_id"]
        body = await read_json(request)
        name, description = _optional_str(body, "name"), _optional_str(body, "description")
        updated = await run_sync(
            lambda: self.store.update_vector_store(
                vs_id,
                name=name,
                description=description,
                metadata=str_dict(body.get("metadata"), "metadata"),
            )
        )
        return JSONResponse(wire.vector_store_object(updated))

    async def delete_store(self, request: HTTPRequest) -> JSONResponse:
        """``DELETE /v1/vector_stores/{vs_id}`` (its files stay)."""
        vs_id = request.path_params["vs_id"]
        await run_sync(lambda: self.store.delete_vector_store(vs_id))
        return JSONResponse(wire.deleted("vector_store.deleted", vs_id))

    async def search_store(self, request: HTTPRequest) -> JSONResponse:
        """``POST /v1/vector_stores/{vs_id}/search``."""
        vs_id = request.path_params["vs_id"]
        body = await read_json(request)
        query = body.get("query")
        if isinstance(query, list) and all(isinstance(q, str) for q in query):
            query = " ".join(query)
        if not isinstance(query, str) or not query.strip():
            raise UsageError("query is required (a string or a list of strings)")
        ranking = body.get("ranking_options") or {}
        if not isinstance(ranking, dict):
            raise UsageError("ranking_options must be an object")
        threshold = ranking.get("score_threshold")
        if threshold is not None and (
            isinstance(threshold, bool) or not isinstance(threshold, int | float)
        ):
            raise UsageError("ranking_options.score_threshold must be a number")
        limit = body.get("max_num_results", 10)
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise UsageError("max_num_results must be an integer")
        hits = await run_sync(
            lambda: self.store.search(
                [vs_id],
                query,
                max_num_results=limit,
                score_threshold=threshold,
                filters=body.get("filters"),
            )
        )
        return JSONResponse(wire.search_page(query, hits))

    # -- vector store files --------------------------------------------------------------

    async def add_store_file(self, request: HTTPRequest) -> JSONResponse:
        """``POST /v1/vector_stores/{vs_id}/files``: attach a stored file."""
        vs_id = request.path_params["vs_id"]
        body = await read_json(request)
        file_id, attributes = body.get("file_id"), body.get("attributes")
        if not isinstance(file_id, str):
            raise UsageError("file_id is required")
        if attributes is not None and not isinstance(attributes, dict):
            raise UsageError("attributes must be an object")
        return await self._attach(vs_id, file_id, attributes)

    async def list_store_files(self, request: HTTPRequest) -> JSONResponse:
        """``GET /v1/vector_stores/{vs_id}/files``."""
        vs_id = request.path_params["vs_id"]
        members = await run_sync(lambda: self.store.list_vector_store_files(vs_id))
        return paged(request, [wire.vector_store_file_object(m) for m in members])

    async def get_store_file(self, request: HTTPRequest) -> JSONResponse:
        """``GET /v1/vector_stores/{vs_id}/files/{file_id}``."""
        vs_id, file_id = request.path_params["vs_id"], request.path_params["file_id"]
        member = await run_sync(lambda: self.store.get_vector_store_file(vs_id, file_id))
        return JSONResponse(wire.vector_store_file_object(member))

    async def update_store_file(self, request: HTTPRequest) -> JSONResponse:
        """``POST /v1/vector_stores/{vs_id}/files/{file_id}``: replace a member's attributes."""
        vs_id, file_id = request.path_params["vs_id"], request.path_params["file_id"]
        body = await read_json(request)
        attributes = body.get("attributes")
        if not isinstance(attributes, dict):
            raise UsageError("attributes must be an object")
        await run_sync(lambda: self.store.get_vector_store_file(vs_id, file_id))
        return await self._attach(vs_id, file_id, attributes)

    async def remove_store_file(self, request: HTTPRequest) -> JSONResponse:
        """``DELETE /v1/vector_stores/{vs_id}/files/{file_id}`` (the file stays)."""
        vs_id, file_id = request.path_params["vs_id"], request.path_params["file_id"]
        await run_sync(lambda: self.store.detach_file(vs_id, file_id))
        return JSONResponse(wire.deleted("vector_store.file.deleted", file_id))

    async def _attach(
        self, vs_id: str, file_id: str, attributes: dict[str, Any] | None
    ) -> JSONResponse:
        member = await run_sync(
            lambda: self.store.attach_file(vs_id, file_id, attributes=attributes)
        )
        return JSONResponse(wire.vector_store_file_object(member))


def _optional_str(body: dict[str, Any], key: str) -> str | None:
    """``body[key]`` when it is a string or missing/null, else a UsageError naming the field."""
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise UsageError(f"{key} must be a string")
    return value


def knowledge_routes(store: KnowledgeStore) -> list[Route]:
    """The files and vector store routes bound to ``store``."""
    return KnowledgeRoutes(store).routes()
