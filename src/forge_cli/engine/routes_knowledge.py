"""``/v1/files`` and ``/v1/vector_stores`` routes of ``forge serve`` over the knowledge store.

Store calls are synchronous SQLite work and run in a worker thread. Errors are raised as our own
exceptions; the app's handlers turn them into OpenAI-shaped JSON errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from anyio import to_thread
from starlette.requests import Request as HTTPRequest
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from forge_cli.engine import wire
from forge_cli.engine.multipart import parse_multipart
from forge_cli.errors import UsageError
from forge_cli.knowledge import KnowledgeStore

__all__ = ["knowledge_routes", "read_json"]

T = TypeVar("T")
_MULTIPART_SLACK = 64 * 1024


async def _run(func: Callable[[], T]) -> T:
    return await to_thread.run_sync(func)


async def read_json(request: HTTPRequest) -> dict[str, Any]:
    """The JSON object body of a request (an empty body is an empty object)."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"the request body is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UsageError("the request body must be a JSON object")
    return value


def _paged(request: HTTPRequest, data: list[dict[str, Any]]) -> JSONResponse:
    """Apply ``order``, ``after`` and ``limit`` query parameters to a full listing."""
    params = request.query_params
    if params.get("order", "desc") == "desc":
        data = list(reversed(data))
    after = params.get("after")
    if after:
        ids = [entry["id"] for entry in data]
        data = data[ids.index(after) + 1 :] if after in ids else []
    try:
        limit = int(params.get("limit", "100"))
    except ValueError as exc:
        raise UsageError("limit must be an integer") from exc
    page = wire.list_page(data[: max(1, min(limit, 10_000))])
    page["has_more"] = len(data) > limit
    return JSONResponse(page)


def _str_dict(value: object, name: str) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise UsageError(f"{name} must be an object of strings")
    return {str(k): v for k, v in value.items()}


def knowledge_routes(store: KnowledgeStore) -> list[Route]:
    """The files and vector store routes bound to ``store``."""

    async def upload_file(request: HTTPRequest) -> JSONResponse:
        size = int(request.headers.get("content-length") or 0)
        if size > store.max_file_bytes + _MULTIPART_SLACK:
            raise UsageError(f"the upload is larger than the limit of {store.max_file_bytes} bytes")
        form = parse_multipart(request.headers.get("content-type", ""), await request.body())
        if "file" not in form.files:
            raise UsageError("the upload has no 'file' part")
        filename, content = form.files["file"]
        result = await _run(lambda: store.add_file(content, filename))
        assert result.file is not None
        return JSONResponse(wire.file_object(result.file))

    async def list_files(request: HTTPRequest) -> JSONResponse:
        files = await _run(store.list_files)
        return _paged(request, [wire.file_object(f) for f in files])

    async def get_file(request: HTTPRequest) -> JSONResponse:
        file_id = request.path_params["file_id"]
        return JSONResponse(wire.file_object(await _run(lambda: store.get_file(file_id))))

    async def file_content(request: HTTPRequest) -> Response:
        file_id = request.path_params["file_id"]
        record = await _run(lambda: store.get_file(file_id))
        data = await _run(lambda: store.get_file_content(file_id))
        return Response(data, media_type=record.mime_type or "application/octet-stream")

    async def delete_file(request: HTTPRequest) -> JSONResponse:
        file_id = request.path_params["file_id"]
        await _run(lambda: store.delete_file(file_id))
        return JSONResponse(wire.deleted("file", file_id))

    async def create_store(request: HTTPRequest) -> JSONResponse:
        body = await read_json(request)
        name = body.get("name") or "untitled"
        file_ids = body.get("file_ids") or []
        if not isinstance(name, str) or not isinstance(file_ids, list):
            raise UsageError("name must be a string and file_ids a list of file ids")
        created = await _run(
            lambda: store.create_vector_store(
                name,
                description=body.get("description"),
                metadata=_str_dict(body.get("metadata"), "metadata"),
                file_ids=[str(f) for f in file_ids],
            )
        )
        return JSONResponse(wire.vector_store_object(created))

    async def list_stores(request: HTTPRequest) -> JSONResponse:
        stores = await _run(store.list_vector_stores)
        return _paged(request, [wire.vector_store_object(s) for s in stores])

    async def get_store(request: HTTPRequest) -> JSONResponse:
        vs_id = request.path_params["vs_id"]
        return JSONResponse(
            wire.vector_store_object(await _run(lambda: store.get_vector_store(vs_id)))
        )

    async def update_store(request: HTTPRequest) -> JSONResponse:
        vs_id = request.path_params["vs_id"]
        body = await read_json(request)
        updated = await _run(
            lambda: store.update_vector_store(
                vs_id,
                name=body.get("name"),
                description=body.get("description"),
                metadata=_str_dict(body.get("metadata"), "metadata"),
            )
        )
        return JSONResponse(wire.vector_store_object(updated))

    async def delete_store(request: HTTPRequest) -> JSONResponse:
        vs_id = request.path_params["vs_id"]
        await _run(lambda: store.delete_vector_store(vs_id))
        return JSONResponse(wire.deleted("vector_store.deleted", vs_id))

    async def add_store_file(request: HTTPRequest) -> JSONResponse:
        vs_id = request.path_params["vs_id"]
        body = await read_json(request)
        file_id, attributes = body.get("file_id"), body.get("attributes")
        if not isinstance(file_id, str):
            raise UsageError("file_id is required")
        if attributes is not None and not isinstance(attributes, dict):
            raise UsageError("attributes must be an object")
        member = await _run(lambda: store.attach_file(vs_id, file_id, attributes=attributes))
        return JSONResponse(wire.vector_store_file_object(member))

    async def list_store_files(request: HTTPRequest) -> JSONResponse:
        vs_id = request.path_params["vs_id"]
        members = await _run(lambda: store.list_vector_store_files(vs_id))
        return _paged(request, [wire.vector_store_file_object(m) for m in members])

    async def get_store_file(request: HTTPRequest) -> JSONResponse:
        vs_id, file_id = request.path_params["vs_id"], request.path_params["file_id"]
        member = await _run(lambda: store.get_vector_store_file(vs_id, file_id))
        return JSONResponse(wire.vector_store_file_object(member))

    async def remove_store_file(request: HTTPRequest) -> JSONResponse:
        vs_id, file_id = request.path_params["vs_id"], request.path_params["file_id"]
        await _run(lambda: store.detach_file(vs_id, file_id))
        return JSONResponse(wire.deleted("vector_store.file.deleted", file_id))

    async def search_store(request: HTTPRequest) -> JSONResponse:
        vs_id = request.path_params["vs_id"]
        body = await read_json(request)
        query = body.get("query")
        if isinstance(query, list):
            query = " ".join(str(q) for q in query)
        if not isinstance(query, str) or not query.strip():
            raise UsageError("query is required")
        ranking = body.get("ranking_options") or {}
        threshold = ranking.get("score_threshold") if isinstance(ranking, dict) else None
        limit = body.get("max_num_results", 10)
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise UsageError("max_num_results must be an integer")
        hits = await _run(
            lambda: store.search(
                [vs_id],
                query,
                max_num_results=limit,
                score_threshold=threshold,
                filters=body.get("filters"),
            )
        )
        return JSONResponse(wire.search_page(query, hits))

    return [
        Route("/v1/files", upload_file, methods=["POST"]),
        Route("/v1/files", list_files, methods=["GET"]),
        Route("/v1/files/{file_id}", get_file, methods=["GET"]),
        Route("/v1/files/{file_id}", delete_file, methods=["DELETE"]),
        Route("/v1/files/{file_id}/content", file_content, methods=["GET"]),
        Route("/v1/vector_stores", create_store, methods=["POST"]),
        Route("/v1/vector_stores", list_stores, methods=["GET"]),
        Route("/v1/vector_stores/{vs_id}", get_store, methods=["GET"]),
        Route("/v1/vector_stores/{vs_id}", update_store, methods=["POST"]),
        Route("/v1/vector_stores/{vs_id}", delete_store, methods=["DELETE"]),
        Route("/v1/vector_stores/{vs_id}/files", add_store_file, methods=["POST"]),
        Route("/v1/vector_stores/{vs_id}/files", list_store_files, methods=["GET"]),
        Route("/v1/vector_stores/{vs_id}/files/{file_id}", get_store_file, methods=["GET"]),
        Route(
            "/v1/vector_stores/{vs_id}/files/{file_id}",
            add_store_file_update(store),
            methods=["POST"],
        ),
        Route("/v1/vector_stores/{vs_id}/files/{file_id}", remove_store_file, methods=["DELETE"]),
        Route("/v1/vector_stores/{vs_id}/search", search_store, methods=["POST"]),
    ]


def add_store_file_update(store: KnowledgeStore) -> Callable[[HTTPRequest], Any]:
    """``POST /v1/vector_stores/{vs}/files/{file}``: replace a member's attributes."""

    async def update(request: HTTPRequest) -> JSONResponse:
        vs_id, file_id = request.path_params["vs_id"], request.path_params["file_id"]
        body = await read_json(request)
        attributes = body.get("attributes")
        if not isinstance(attributes, dict):
            raise UsageError("attributes must be an object")
        await _run(lambda: store.get_vector_store_file(vs_id, file_id))
        member = await _run(lambda: store.attach_file(vs_id, file_id, attributes=attributes))
        return JSONResponse(wire.vector_store_file_object(member))

    return update
