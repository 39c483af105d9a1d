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

import logging
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from forge_cli.backends._chat_errors import map_openai_error
from forge_cli.backends._chat_request import to_chat_body
from forge_cli.backends._chat_stream import ChatStreamTranslator
from forge_cli.errors import BackendConnectionError, BackendTimeoutError, ProtocolError
from forge_cli.jsonsafe import loads as json_loads
from forge_cli.limits import DEFAULT_LIMITS, Limits
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request
from forge_cli.redact import redact, register_secret
from forge_cli.stream.sse import LineSplitter, event_too_large

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from forge_cli.backends._http import BodyBudget

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
        limits: Limits = DEFAULT_LIMITS,
        think_tags: bool = True,
    ) -> None:
        self.base_url = base_url
        self.limits = limits
        self.think_tags = think_tags
        """Whether ``<think>…</think>`` opening an answer is shown as reasoning."""
        self.api_key_env = api_key_env
        env_key = os.environ.get(api_key_env) if api_key_env else None
        self._api_key = api_key or env_key or PLACEHOLDER_API_KEY
        if self._api_key != PLACEHOLDER_API_KEY:
            register_secret(self._api_key)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.max_retries = max_retries
        self.default_headers = dict(default_headers or {})
        self.dropped_tools: list[str] = []
        """Hosted tool types the last request carried that a Chat server cannot run."""
        self._client: AsyncOpenAI | None = None

    def _get_client(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI

            from forge_cli.backends._http import build_client

            # Follows redirects like the Responses backend (and the SDK's own default client);
            # error bodies are cut to limits.max_error_body_bytes before the SDK reads them.
            http = build_client(
                connect_timeout=self.connect_timeout, read_timeout=self.timeout, limits=self.limits
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

        from forge_cli.backends._http import BodyBudget

        body = to_chat_body(request)
        self.dropped_tools = body.dropped_tools
        if body.dropped_tools:
            _log.warning(
                "the chat server cannot run hosted tools; dropped: %s",
                ", ".join(body.dropped_tools),
            )
        translator = ChatStreamTranslator(request.model, split_think=self.think_tags)
        client = self._get_client()
        finished = False
        valid = 0
        where = self.base_url.rstrip("/")
        try:
            response = client.chat.completions.with_streaming_response.create(**body.kwargs)
            async with response as raw:
                for event in translator.start():
                    yield event
                budget = BodyBudget(where, self.limits.max_response_bytes)
                lines = _lines(raw.iter_bytes(), budget, self.limits.max_event_bytes)
                async for chunk in _chunks(lines, self.limits):
                    if chunk is None:
                        finished = True
                        break
                    valid += 1
                    error = _stream_error(chunk)
                    if error is not None:
                        for event in translator.fail(*error):
                            yield event
                        return
                    for event in translator.feed(chunk):
                        yield event
        except openai.OpenAIError as exc:
            raise map_openai_error(exc, base_url=self.base_url, env_var=self.api_key_env) from exc
        except httpx2.TimeoutException as exc:
            raise BackendTimeoutError(f"timed out reading from {where}") from exc
        except httpx2.TransportError as exc:
            raise BackendConnectionError(
                redact(f"the connection to {where} was lost: {exc}")
            ) from exc
        if valid == 0:
            raise ProtocolError(f"the stream from {where} carried no valid chunk")
        if not finished and translator.finish_reason is None:
            raise ProtocolError(f"the stream from {where} ended before the reply finished")
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


async def _lines(
    chunks: AsyncIterator[bytes], budget: BodyBudget, max_line: int
) -> AsyncIterator[str]:
    """The body's lines: decoded size counted, each line bounded, split in linear time."""
    splitter = LineSplitter(max_line)
    async for chunk in chunks:
        for line in splitter.feed(budget.add(chunk)):
            yield line.decode("utf-8", errors="replace")
    last = splitter.flush()
    if last is not None:
        yield last.decode("utf-8", errors="replace")


async def _chunks(
    lines: AsyncIterator[str], limits: Limits = DEFAULT_LIMITS
) -> AsyncIterator[dict[str, Any] | None]:
    """Chunk dicts from SSE lines; ``None`` for ``[DONE]``. Non-JSON frames are skipped.

    An event's data is bounded by ``limits.max_event_bytes``; JSON nested deeper than
    ``limits.max_json_depth`` is skipped like any other bad frame.
    """
    data: list[str] = []
    size = 0
    async for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
            size += len(data[-1]) + 1
            if size > limits.max_event_bytes:
                raise event_too_large("an event", limits.max_event_bytes)
            if _complete(data, limits.max_json_depth):
                payload = "\n".join(data)
                data, size = [], 0
                if payload.strip() == "[DONE]":
                    yield None
                    return
                chunk = _parse(payload, limits.max_json_depth)
                if chunk is not None:
                    yield chunk
        elif not line.strip() and data:
            payload, data, size = "\n".join(data), [], 0
            if payload.strip() == "[DONE]":
                yield None
                return
            chunk = _parse(payload, limits.max_json_depth)
            if chunk is not None:
                yield chunk


def _complete(data: list[str], max_depth: int) -> bool:
    """Most servers put one JSON object on one ``data:`` line: handle it without a blank line."""
    if len(data) != 1:
        return False
    text = data[0].strip()
    return text == "[DONE]" or _parse(text, max_depth, quiet=True) is not None


def _parse(payload: str, max_depth: int, *, quiet: bool = False) -> dict[str, Any] | None:
    try:
        value = json_loads(payload, max_depth=max_depth)
    except ValueError as exc:
        if not quiet:
            _log.debug("skipping a bad chat frame (%s): %.200s", exc, payload)
        return None
    return value if isinstance(value, dict) else None


def _stream_error(chunk: dict[str, Any]) -> tuple[str, str | None] | None:
    """The message and code of a ``{"error": ...}`` object sent mid-stream (many servers do)."""
    error = chunk.get("error")
    if not error:
        return None
    if isinstance(error, dict):
        message = redact(str(error.get("message") or "the server reported an error"))
        code = error.get("code")
    else:
        message, code = redact(str(error)), None
    return message, code if isinstance(code, str) else None
