"""A backend for Responses API servers (Knowledge Forge, OpenAI, vLLM, Ollama ≥ 0.13) over httpx2.

``stream`` POSTs the request to ``{base_url}/responses`` with ``stream: true`` and yields the SSE
events as :class:`StreamEvent` values. It retries only before the reply's first byte (see
:class:`~forge_cli.backends.http.client.RetryPolicy`); once events flow, a failure is raised from
the iterator as a typed error and the events already yielded stay with the caller. Closing the
generator (or cancelling the task iterating it) closes the HTTP connection at once.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx2

from forge_cli.api_keys import check_api_key, key_source
from forge_cli.backends.base import RequestSent
from forge_cli.backends.http.client import (
    BodyBudget,
    ErrorContext,
    RetryPolicy,
    Secret,
    SleepFunction,
    build_client,
    display_url,
    map_transport_error,
    reject_html,
    send_with_retries,
)
from forge_cli.backends.http.early import EarlySending, signal_sent
from forge_cli.backends.responses.kf_events import knowledge_forge_event
from forge_cli.backends.responses.request import Dialect, responses_body, shape_wire
from forge_cli.errors import ConfigError, ProtocolError
from forge_cli.jsonsafe import loads as json_loads
from forge_cli.limits import DEFAULT_LIMITS, Limits, describe_bytes
from forge_cli.protocol.events import TERMINAL_EVENTS, StreamEvent
from forge_cli.redact import register_secret
from forge_cli.stream.sse import SSEDecoder

if TYPE_CHECKING:
    from forge_cli.protocol.request import Request
    from forge_cli.protocol.response import Response

__all__ = ["ResponsesBackend"]

_MAX_JSON_BODY = 32 * 1024 * 1024


class ResponsesBackend(EarlySending):
    """Talks to a Responses API server. ``base_url`` includes ``/v1`` (a trailing ``/`` is fine).

    The API key comes from ``api_key`` or else the environment variable ``api_key_env`` (when it
    is set; local servers need none) and is sent as a bearer token. ``store`` overrides the
    request's ``store`` field (pass ``False`` for vLLM, which rejects the default). A ``client``
    passed in is used as is (its timeouts apply) and is not closed by :meth:`aclose`.
    ``on_request_sent`` is called each time a request's body is written (the CLI's warm-up).

    ``dialect`` says how the body is shaped: ``"openai"`` (standard fields only, the effort as
    ``reasoning.effort``) or ``"knowledge-forge"`` (Knowledge Forge's top-level ``effort`` and the
    older Knowledge Forge CLI's defaults); see :mod:`forge_cli.backends.responses.request`.
    """

    runs_hosted_tools = True

    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        store: bool | None = None,
        dialect: Dialect = "openai",
        client: httpx2.AsyncClient | None = None,
        sleep: SleepFunction = asyncio.sleep,
        limits: Limits = DEFAULT_LIMITS,
        on_request_sent: RequestSent | None = None,
    ) -> None:
        self.dialect: Dialect = dialect
        self.name = "knowledge-forge" if dialect == "knowledge-forge" else "responses"
        self.base_url = _normalise_base_url(base_url)
        self.limits = limits
        self.api_key_env = api_key_env
        key = api_key if api_key is not None else _env_key(api_key_env)
        check_api_key(key, key_source(api_key, api_key_env, "ResponsesBackend"))
        register_secret(key)
        self._api_key = Secret(key) if key else None
        self._headers = dict(headers or {})
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.retry = retry or RetryPolicy()
        self.store = store
        self._sleep = sleep
        self._owns_client = client is None
        self._on_request_sent = on_request_sent
        self._client = client or build_client(
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            limits=limits,
            on_request_sent=on_request_sent,
        )
        self._early = None

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return (
            f"ResponsesBackend(base_url={self.base_url!r}, api_key={key}, store={self.store!r}, "
            f"dialect={self.dialect!r})"
        )

    @property
    def stores_responses(self) -> bool:
        """Whether a follow-up may send only ``previous_response_id`` and the new input.

        True only when this backend sends ``store: true`` (the user asked for it). Without that
        the server may not keep the response: Ollama is stateless and silently ignores
        ``previous_response_id``, vLLM rejects ``store: true`` unless configured for it -- so by
        default the chat session resends the history.
        """
        return self.store is True

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """Send ``request`` and yield its events as they arrive."""
        async with aclosing(self.stream_batches(request)) as batches:
            async for batch in batches:
                for event in batch:
                    yield event

    async def stream_batches(self, request: Request) -> AsyncGenerator[list[StreamEvent], None]:
        """Like :meth:`stream`, but the events one network read carried come as one list.

        The turn runner folds a batch into one snapshot (``stream.fold_batches``): events that
        arrived together are shown together, at the cost of one snapshot, not one per event.
        """
        body = self._body(responses_body(request, dialect=self.dialect))
        url = f"{self.base_url}/responses"
        ctx = self._context(url)
        await self._drop_early()  # an early send nobody took is not this request's
        response = await self._send(body, url, ctx)
        async with aclosing(self._batches_of(response, ctx)) as batches:
            async for batch in batches:
                yield batch

    async def _batches_of(
        self, response: httpx2.Response, ctx: ErrorContext
    ) -> AsyncGenerator[list[StreamEvent], None]:
        """The event batches of ``response``; closes it when done, also when the task iterating
        this ends (see :func:`_close_when_task_ends`)."""
        release = _close_when_task_ends(response)
        try:
            reject_html(response, ctx)
            if _is_json(response):
                reply = await self._json_reply_event(response, ctx)
                yield [knowledge_forge_event(reply) if self.dialect == "knowledge-forge" else reply]
                return
            async with aclosing(_sse_batches(response, ctx, self.limits)) as batches:
                async for batch in batches:
                    if self.dialect == "knowledge-forge":
                        batch = [knowledge_forge_event(event) for event in batch]
                    yield batch
        finally:
            release()
            await response.aclose()

    async def send_early(self, wire: dict[str, Any]) -> None:
        """Start sending the request whose wire body (``Request.to_wire()``) is ``wire``;
        return once its body is written (or the attempt is over).

        ``forge ask`` writes its first request before the request model exists
        (``conversations.first_request_wire``) and streams its reply with
        :meth:`stream_early` -- the same client, retries, timeouts and error mapping, an error
        raised there as :meth:`stream_batches` would raise it.
        """
        body = self._body(shape_wire(dict(wire), dialect=self.dialect))
        url = f"{self.base_url}/responses"
        ctx = self._context(url)
        await self._start_early(body, lambda sent: self._send(body, url, ctx, sent))

    def _early_batches(
        self, body: dict[str, Any], response: httpx2.Response
    ) -> AsyncGenerator[list[StreamEvent], None]:
        return self._batches_of(response, self._context(f"{self.base_url}/responses"))

    def _body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The POST body: ``stream`` on, and ``store`` when this backend sets it."""
        body["stream"] = True
        if self.store is not None:
            body["store"] = self.store
        return body

    async def _send(
        self,
        body: dict[str, Any],
        url: str,
        ctx: ErrorContext,
        sent: asyncio.Future[None] | None = None,
    ) -> httpx2.Response:
        http_request = self._client.build_request(
            "POST", url, json=body, headers=self._request_headers("text/event-stream")
        )
        if sent is not None:
            http_request.extensions["trace"] = signal_sent(sent, self._on_request_sent)
        return await send_with_retries(
            self._client, http_request, policy=self.retry, ctx=ctx, sleep=self._sleep
        )

    async def retrieve(self, response_id: str) -> Response:
        """``GET /responses/{id}``: a stored response (servers with a store only)."""
        data = await self._get_json(f"/responses/{quote(response_id, safe='')}")
        if not isinstance(data, dict):
            raise ProtocolError(f"{display_url(self.base_url)}/responses did not return an object")
        from forge_cli.protocol.parse import parse_response

        return parse_response(data)

    async def list_models(self) -> list[str]:
        """``GET /models``: the ids of the models the server offers, in its order."""
        data = await self._get_json("/models")
        entries = data.get("data") if isinstance(data, dict) else data
        if not isinstance(entries, list):
            raise ProtocolError(f"{display_url(self.base_url)}/models did not return a model list")
        ids = [entry.get("id") for entry in entries if isinstance(entry, dict)]
        return [model_id for model_id in ids if isinstance(model_id, str)]

    async def aclose(self) -> None:
        """Close the HTTP client if we created it."""
        await self._drop_early()
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> ResponsesBackend:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def _context(self, url: str) -> ErrorContext:
        secrets = (self._api_key,) if self._api_key else ()
        return ErrorContext(
            url=display_url(url),
            env_var=self.api_key_env,
            secrets=secrets,
            key_sent=self._api_key is not None,
        )

    def _request_headers(self, accept: str) -> dict[str, str]:
        headers = {"Accept": accept, **self._headers}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        return headers

    async def _get_json(self, path: str) -> Any:
        url = f"{self.base_url}{path}"
        ctx = self._context(url)
        request = self._client.build_request(
            "GET", url, headers=self._request_headers("application/json")
        )
        response = await send_with_retries(
            self._client, request, policy=self.retry, ctx=ctx, sleep=self._sleep
        )
        try:
            return await _read_json(response, ctx, self.limits)
        finally:
            await response.aclose()

    async def _json_reply_event(self, response: httpx2.Response, ctx: ErrorContext) -> StreamEvent:
        """A server that ignored ``stream: true`` sent the whole Response: one terminal event."""
        data = await _read_json(response, ctx, self.limits)
        if isinstance(data, dict) and (data.get("object") == "response" or "output" in data):
            return StreamEvent("response.completed", {"response": data})
        raise ProtocolError(f"{ctx.url} sent JSON that is not a Response instead of a stream")


def _normalise_base_url(base_url: str) -> str:
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(
            f"the base URL {display_url(url)!r} is not an http(s) URL",
            hint="use a URL like http://localhost:8000/v1",
        )
    return url


def _env_key(env_var: str | None) -> str | None:
    if not env_var:
        return None
    return os.environ.get(env_var) or None


_closing: set[asyncio.Task[None]] = set()
"""Close tasks in flight (the event loop keeps only weak references to tasks)."""


def _close_when_task_ends(response: httpx2.Response) -> Callable[[], None]:
    """Close ``response`` when the task iterating the stream ends, even if the generator is not.

    A consumer cancelled while it awaits something else between events leaves our generator
    suspended at ``yield``; Python finalizes it only when it is garbage-collected, which a
    traceback holding the frame can delay indefinitely. Tying the socket to the consuming task
    releases it promptly. Returns the function that undoes the tie (on normal close).
    """
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not running under asyncio (e.g. trio): rely on aclose()
        task = None
    if task is None:
        return lambda: None

    def on_done(_: asyncio.Task[Any]) -> None:
        if not response.is_closed:
            closer = asyncio.ensure_future(response.aclose())
            _closing.add(closer)
            closer.add_done_callback(_closing.discard)

    task.add_done_callback(on_done)

    def release() -> None:
        task.remove_done_callback(on_done)

    return release


def _is_json(response: httpx2.Response) -> bool:
    content_type = response.headers.get("content-type", "").lower()
    return content_type.startswith("application/json")


async def _sse_batches(
    response: httpx2.Response, ctx: ErrorContext, limits: Limits = DEFAULT_LIMITS
) -> AsyncGenerator[list[StreamEvent], None]:
    """The body decoded as SSE events (the same decoder as :func:`aiter_sse_events`), one list
    per network read that completed any.

    A transport failure becomes our error, unless the server had already sent a terminal event:
    a connection dropped after ``response.completed`` lost nothing. The decoded size, each line
    and each event are bounded by ``limits``.
    """
    decoder = SSEDecoder(max_event=limits.max_event_bytes, max_depth=limits.max_json_depth)
    budget = BodyBudget(ctx.url, limits.max_response_bytes)
    finished = False
    chunks = response.aiter_bytes()
    while True:
        try:
            chunk = await anext(chunks)
        except StopAsyncIteration:
            break
        except httpx2.HTTPError as exc:
            if finished:
                return
            raise map_transport_error(exc, ctx, "stream") from exc
        events = decoder.feed(budget.add(chunk))
        if events:
            finished = finished or any(event.type in TERMINAL_EVENTS for event in events)
            yield events
        if decoder.done:
            return
    events = decoder.flush()
    if events:
        yield events


async def _read_json(
    response: httpx2.Response, ctx: ErrorContext, limits: Limits = DEFAULT_LIMITS
) -> Any:
    chunks: list[bytes] = []
    size = 0
    limit = min(_MAX_JSON_BODY, limits.max_response_bytes)
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise ProtocolError(
                    f"the reply from {ctx.url} is larger than {describe_bytes(limit)}",
                    hint="raise limits.max_response_mb (FORGE_MAX_RESPONSE_MB) if it is trusted",
                )
    except httpx2.HTTPError as exc:
        raise map_transport_error(exc, ctx, "stream") from exc
    try:
        return json_loads(b"".join(chunks), max_depth=limits.max_json_depth)
    except ValueError as exc:
        raise ProtocolError(f"{ctx.url} did not return valid JSON ({exc})") from exc
