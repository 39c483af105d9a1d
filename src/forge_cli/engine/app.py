"""The ASGI app of ``forge serve``: a Knowledge Forge / OpenAI-compatible HTTP API (starlette).

``/v1/responses`` streams the engine's events as SSE (``event:`` line plus JSON ``data`` with
``type`` and ``sequence_number``), or returns the final Response as JSON when ``stream`` is not
true. Requests are validated before the stream starts, so an unknown vector store is a 404 in the
OpenAI error shape, never a half-sent stream.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from forge_cli.engine import safe_json
from forge_cli.engine.engine import Engine
from forge_cli.engine.guard import MULTIPART_SLACK, GuardPolicy, RequestGuard
from forge_cli.engine.http_errors import error_response, forge_error_handler, http_error_handler
from forge_cli.engine.routes_batches import batch_routes
from forge_cli.engine.routes_chat import chat_routes
from forge_cli.engine.routes_knowledge import knowledge_routes, read_json
from forge_cli.engine.safe_json import JSONResponse
from forge_cli.engine.structured import check_structured_output
from forge_cli.errors import ForgeError, UsageError
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request

__all__ = ["create_app", "sse_frame"]


def sse_frame(event: StreamEvent) -> bytes:
    """One SSE frame: ``event: <type>`` and the JSON payload."""
    payload = safe_json.dumps(event.data)
    return f"event: {event.type}\ndata: {payload}\n\n".encode()


class _BearerAuth:
    """Pure ASGI middleware: require ``Authorization: Bearer <token>`` except on ``/health``.

    (Pure ASGI rather than ``BaseHTTPMiddleware`` so SSE responses stream untouched.)
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") != "/health":
            given = b""
            for name, value in scope.get("headers", []):
                if name.lower() == b"authorization":
                    given = value
            if not hmac.compare_digest(given, self._expected):
                answer = error_response(
                    401,
                    "missing or wrong bearer token for this forge serve instance",
                    "invalid_request_error",
                    code="invalid_api_key",
                )
                await answer(scope, receive, send)
                return
        await self._app(scope, receive, send)


def _parse_request(body: dict[str, Any]) -> Request:
    try:
        return Request.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise UsageError(f"invalid request: {where}: {first.get('msg')}") from exc


def _response_routes(engine: Engine) -> list[Route]:
    async def create_response(request: HTTPRequest) -> Response:
        body = await read_json(request)
        parsed = _parse_request(body)
        check_structured_output(engine, parsed)
        prepared = await engine.prepare(parsed)
        if body.get("stream") is True:
            return StreamingResponse(
                _sse(engine.run(prepared)),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        final: dict[str, Any] = {}
        async for event in engine.run(prepared):
            if event.type in ("response.completed", "response.failed"):
                final = event.data["response"]
        return JSONResponse(final)

    async def get_response(request: HTTPRequest) -> JSONResponse:
        return JSONResponse(engine.get_response(request.path_params["response_id"]))

    async def models(_request: HTTPRequest) -> JSONResponse:
        names = engine.model_names()
        data = [{"id": n, "object": "model", "created": 0, "owned_by": "forge"} for n in names]
        return JSONResponse({"object": "list", "data": data})

    async def health(_request: HTTPRequest) -> JSONResponse:
        return JSONResponse({"status": "ok", "model": engine.answerer.model})

    return [
        Route("/v1/responses", create_response, methods=["POST"]),
        Route("/v1/responses/{response_id}", get_response, methods=["GET"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
    ]


async def _sse(events: AsyncIterator[StreamEvent]) -> AsyncIterator[bytes]:
    async for event in events:
        yield sse_frame(event)


def create_app(
    engine: Engine, *, token: str | None = None, guard: GuardPolicy | None = None
) -> Starlette:
    """The ASGI app serving ``engine`` (and its knowledge store); ``token`` enables bearer auth.

    ``guard`` sets the Host, Origin and body-size checks (:mod:`forge_cli.engine.guard`); the
    default is a loopback server on any port with the default limits.
    """
    policy = guard or GuardPolicy(max_upload_bytes=engine.store.max_file_bytes + MULTIPART_SLACK)
    middleware = [Middleware(RequestGuard, policy=policy)]
    if token:
        middleware.append(Middleware(_BearerAuth, token=token))
    return Starlette(
        routes=[
            *_response_routes(engine),
            *chat_routes(engine),
            *batch_routes(engine.store),
            *knowledge_routes(engine.store),
        ],
        middleware=middleware,
        exception_handlers={ForgeError: forge_error_handler, HTTPException: http_error_handler},
    )
