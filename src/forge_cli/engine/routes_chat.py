"""``POST /v1/chat/completions``: the engine behind the Chat Completions API (plain and streamed).

Clients that speak only Chat Completions (``llm``, openai-agents' chat model, most chat UIs) get
the same engine as ``/v1/responses``: retrieval with citations, the upstream model when one is
configured, the request's function tools returned as ``tool_calls`` for the client to run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request as HTTPRequest
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from forge_cli.engine.chat_wire import ChatTranslator, chat_to_request, sse_chunk
from forge_cli.engine.engine import Engine
from forge_cli.engine.http_errors import error_body
from forge_cli.engine.routes_knowledge import read_json
from forge_cli.engine.safe_json import JSONResponse
from forge_cli.engine.structured import check_structured_output
from forge_cli.protocol.events import StreamEvent

__all__ = ["chat_routes"]


def chat_routes(engine: Engine) -> list[Route]:
    """The Chat Completions route of ``forge serve``."""

    async def create(request: HTTPRequest) -> Response:
        body = await read_json(request)
        parsed = chat_to_request(body)
        check_structured_output(engine, parsed)
        prepared = await engine.prepare(parsed)
        options = body.get("stream_options") or {}
        translator = ChatTranslator(
            model=body.get("model") or engine.answerer.model,
            include_usage=bool(isinstance(options, dict) and options.get("include_usage")),
        )
        if body.get("stream") is True:
            return StreamingResponse(
                _stream(engine.run(prepared), translator),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        async for event in engine.run(prepared):
            translator.feed(event)
        if translator.error is not None:
            message = str(translator.error.get("message") or "the engine failed")
            return JSONResponse(error_body(message, "server_error", code="server_error"), 500)
        return JSONResponse(translator.completion())

    return [Route("/v1/chat/completions", create, methods=["POST"])]


async def _stream(
    events: AsyncIterator[StreamEvent], translator: ChatTranslator
) -> AsyncIterator[bytes]:
    async for event in events:
        for chunk in translator.feed(event):
            yield sse_chunk(chunk)
    if translator.error is not None:
        failure: dict[str, Any] = error_body(
            str(translator.error.get("message") or "the engine failed"), "server_error"
        )
        yield sse_chunk(failure)
    yield b"data: [DONE]\n\n"
