"""The Chat Completions backend: OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio).

It implements the same :class:`~forge_cli.backends.base.Backend` seam as the Responses backends:
our :class:`Request` goes in (translated by ``_chat_request``), standard Responses stream events
come out (synthesised by ``_chat_stream``), so one SnapshotBuilder and one renderer serve every
backend. Client-side tools run in the agent loop above; this class only talks to the server.

The ``openai`` SDK (~0.3 s to import) is imported inside methods, never when this module loads.
The SDK's raw streaming response is read line by line and each chunk parsed as a plain dict: the
SDK's typed chunk parsing maps odd local-server chunks onto wrong classes (protocol.md §1.11), while
its auth, retries, timeouts and HTTP error classes are kept. Errors are mapped in one place
(``_chat_errors``).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from forge_cli.backends._chat_errors import map_openai_error
from forge_cli.backends._chat_request import to_chat_body
from forge_cli.backends._chat_stream import ChatStreamTranslator
from forge_cli.errors import BackendConnectionError, BackendTimeoutError, ProtocolError
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["PLACEHOLDER_API_KEY", "ChatCompletionsBackend"]

PLACEHOLDER_API_KEY = "sk-no-key-required"
"""Sent when no key is configured: local servers need none, but the SDK insists on one."""

_log = logging.getLogger(__name__)


class ChatCompletionsBackend:
    """Stream one Chat Completions reply per request, as Responses events."""

    name = "chat"
    runs_hosted_tools = False

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 120.0,
        connect_timeout: float = 10.0,
        max_retries: int = 2,
        default_headers: dict[str, str] | None = None,
    ) -> None:
        self.base_url = base_url
        self.api_key_env = api_key_env
        env_key = os.environ.get(api_key_env) if api_key_env else None
        self._api_key = api_key or env_key or PLACEHOLDER_API_KEY
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.max_retries = max_retries
        self.default_headers = dict(default_headers or {})
        self.dropped_tools: list[str] = []
        """Hosted tool types the last request carried that a Chat server cannot run."""
        self._client: AsyncOpenAI | None = None

    def _get_client(self) -> AsyncOpenAI:
        if self._client is None:
            import httpx2
            from openai import AsyncOpenAI

            from forge_cli.backends._http import mark_sent

            http = httpx2.AsyncClient(
                timeout=httpx2.Timeout(self.timeout, connect=self.connect_timeout),
                event_hooks={"request": [mark_sent]},
            )
            self._client = AsyncOpenAI(
                base_url=self.base_url,
                api_key=self._api_key,
                max_retries=self.max_retries,
                default_headers=self.default_headers or None,
                http_client=http,
            )
        return self._client

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Send ``request`` and yield Responses events as the chunks arrive."""
        import httpx2
        import openai

        body = to_chat_body(request)
        self.dropped_tools = body.dropped_tools
        if body.dropped_tools:
            _log.warning(
                "the chat server cannot run hosted tools; dropped: %s",
                ", ".join(body.dropped_tools),
            )
        translator = ChatStreamTranslator(request.model)
        client = self._get_client()
        finished = False
        try:
            response = client.chat.completions.with_streaming_response.create(**body.kwargs)
            async with response as raw:
                for event in translator.start():
                    yield event
                async for chunk in _chunks(raw.iter_lines()):
                    if chunk is None:
                        finished = True
                        break
                    error = _stream_error(chunk)
                    if error is not None:
                        yield error
                        return
                    for event in translator.feed(chunk):
                        yield event
        except openai.OpenAIError as exc:
            raise map_openai_error(exc, base_url=self.base_url, env_var=self.api_key_env) from exc
        except httpx2.TimeoutException as exc:
            raise BackendTimeoutError(f"timed out reading from {self.base_url}") from exc
        except httpx2.TransportError as exc:
            raise BackendConnectionError(
                f"the connection to {self.base_url} was lost: {exc}"
            ) from exc
        if not finished and translator.finish_reason is None:
            raise ProtocolError(f"the stream from {self.base_url} ended before the reply finished")
        for event in translator.finish():
            yield event

    async def list_models(self) -> list[str]:
        """``GET /models``: the ids the server offers (Ollama, vLLM, llama.cpp, LM Studio and
        OpenAI all serve it), in its order."""
        import httpx2
        import openai

        client = self._get_client()
        try:
            page = await client.models.list()
            return [model.id for model in page.data if isinstance(model.id, str)]
        except openai.OpenAIError as exc:
            raise map_openai_error(exc, base_url=self.base_url, env_var=self.api_key_env) from exc
        except httpx2.HTTPError as exc:
            raise BackendConnectionError(f"cannot list models at {self.base_url}: {exc}") from exc

    async def aclose(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.close()
            self._client = None


async def _chunks(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any] | None]:
    """Chunk dicts from SSE lines; ``None`` for ``[DONE]``. Non-JSON frames are skipped."""
    data: list[str] = []
    async for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
            if _complete(data):
                payload = "\n".join(data)
                data = []
                if payload.strip() == "[DONE]":
                    yield None
                    return
                chunk = _parse(payload)
                if chunk is not None:
                    yield chunk
        elif not line.strip() and data:
            payload, data = "\n".join(data), []
            if payload.strip() == "[DONE]":
                yield None
                return
            chunk = _parse(payload)
            if chunk is not None:
                yield chunk


def _complete(data: list[str]) -> bool:
    """Most servers put one JSON object on one ``data:`` line: handle it without a blank line."""
    if len(data) != 1:
        return False
    text = data[0].strip()
    return text == "[DONE]" or _parse(text) is not None


def _parse(payload: str) -> dict[str, Any] | None:
    try:
        value = json.loads(payload)
    except ValueError:
        _log.debug("skipping a non-JSON chat frame: %.200s", payload)
        return None
    return value if isinstance(value, dict) else None


def _stream_error(chunk: dict[str, Any]) -> StreamEvent | None:
    """A ``{"error": ...}`` object sent mid-stream (many local servers do this)."""
    error = chunk.get("error")
    if not error:
        return None
    if isinstance(error, dict):
        message = str(error.get("message") or "the server reported an error")
        code = error.get("code")
    else:
        message, code = str(error), None
    return StreamEvent(
        "error",
        {"type": "error", "message": message, "code": code if isinstance(code, str) else None},
    )
