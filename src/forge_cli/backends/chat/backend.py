"""The Chat Completions backend: OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio).

It implements the same :class:`~forge_cli.backends.base.Backend` seam as the Responses backends:
our :class:`Request` goes in (translated by ``_chat_request``), standard Responses stream events
come out (synthesised by ``_chat_stream``), so one SnapshotBuilder and one renderer serve every
backend. Client-side tools run in the agent loop above; this class only talks to the server.

It sends through the shared httpx2 stack in ``_http`` (client, bearer key, retry policy, bounded
bodies), as the Responses backend does; the openai SDK is not imported (its import alone cost
~0.8 s of CPU and ~18 MB; docs/adr/0014-chat-path-http.md). The reply is read line by line and
each chunk parsed as a plain dict: typed chunk parsing maps odd local-server chunks onto wrong
classes (protocol.md §1.11). Retries and the wording of errors are the SDK's, kept in one place
(``_chat_errors``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from itertools import repeat
from typing import TYPE_CHECKING, Any

from forge_cli.api_keys import check_api_key, key_source
from forge_cli.backends.chat.stream import ChatStreamTranslator
from forge_cli.backends.http.early import EarlySending
from forge_cli.errors import BackendConnectionError, ProtocolError
from forge_cli.jsonsafe import loads as json_loads
from forge_cli.jsonsafe import whole_object, whole_objects
from forge_cli.limits import DEFAULT_LIMITS, Limits, describe_bytes
from forge_cli.protocol.events import StreamEvent
from forge_cli.redact import redact, register_secret
from forge_cli.stream.endings import NO_TERMINAL_EVENT, NO_VALID_EVENT
from forge_cli.stream.sse import LineSplitter, event_too_large

if TYPE_CHECKING:
    from collections.abc import Mapping

    import httpx2

    from forge_cli.backends.base import RequestSent
    from forge_cli.backends.http.client import BodyBudget, ErrorContext, SleepFunction
    from forge_cli.protocol.request import Request

__all__ = ["PLACEHOLDER_API_KEY", "ChatCompletionsBackend"]

PLACEHOLDER_API_KEY = "sk-no-key-required"
"""Sent when no key is configured: local servers need none, but some proxies insist on one."""

_MAX_JSON_BODY = 32 * 1024 * 1024

_ORGANIZATION_ENV = (
    ("OPENAI_ORG_ID", "OpenAI-Organization"),
    ("OPENAI_PROJECT_ID", "OpenAI-Project"),
)
"""Headers the openai SDK sent from the environment; OpenAI needs them for some keys."""

_log = logging.getLogger(__name__)


class ChatCompletionsBackend(EarlySending):
    """Stream one Chat Completions reply per request, as Responses events.

    Retries before the reply's first byte follow :class:`RetryPolicy` with ``max_retries``
    (connection failures and timeouts, HTTP 408/409/429/5xx, ``Retry-After``); ``timeout`` is
    the idle time allowed between bytes, ``connect_timeout`` the time to connect.
    """

    name = "chat"
    runs_hosted_tools = False
    stores_responses = False

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
        sleep: SleepFunction | None = None,
        on_request_sent: RequestSent | None = None,
    ) -> None:
        self.base_url = base_url
        self.limits = limits
        self.think_tags = think_tags
        """Whether ``<think>…</think>`` opening an answer is shown as reasoning."""
        self.api_key_env = api_key_env
        env_key = os.environ.get(api_key_env) if api_key_env else None
        owner = "ChatCompletionsBackend"
        check_api_key(api_key or env_key, key_source(api_key, api_key_env, owner))
        self._api_key = api_key or env_key or PLACEHOLDER_API_KEY
        if self._api_key != PLACEHOLDER_API_KEY:
            register_secret(self._api_key)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.max_retries = max_retries
        self.default_headers = dict(default_headers or {})
        self.dropped_tools: list[str] = []
        """Hosted tool types the last request carried that a Chat server cannot run."""
        self._sleep: SleepFunction = sleep or asyncio.sleep
        self._client: httpx2.AsyncClient | None = None
        self._on_request_sent = on_request_sent
        """Called each time a request's body is written (the CLI's warm-up)."""
        self._early = None

    def _get_client(self) -> httpx2.AsyncClient:
        # httpx2 and the HTTP plumbing load on first use: importing this module stays cheap.
        from forge_cli.backends.http.client import build_client

        if self._client is None:
            # Follows redirects like the Responses backend; error bodies are cut to
            # limits.max_error_body_bytes before anyone reads them.
            self._client = build_client(
                connect_timeout=self.connect_timeout,
                read_timeout=self.timeout,
                limits=self.limits,
                on_request_sent=self._on_request_sent,
            )
        return self._client

    def _headers(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        env = os.environ if environ is None else environ
        headers = {"Accept": "application/json", "Authorization": f"Bearer {self._api_key}"}
        for variable, header in _ORGANIZATION_ENV:
            if env.get(variable):
                headers[header] = env[variable]
        headers.update(self.default_headers)
        return headers

    def _context(self, path: str) -> ErrorContext:
        """What an error about ``path`` says: its URL as the Responses backend shows one (no
        user info or query), the key's variable, and whether a real key was sent."""
        from forge_cli.backends.http.client import ErrorContext, display_url

        return ErrorContext(
            url=display_url(f"{self.base_url.rstrip('/')}{path}"),
            env_var=self.api_key_env,
            key_sent=self._api_key != PLACEHOLDER_API_KEY,
        )

    async def _send(
        self,
        method: str,
        path: str,
        body: Any = None,
        sent: asyncio.Future[None] | None = None,
    ) -> httpx2.Response:
        """The streaming 2xx reply to ``method path``, retried as the openai SDK did (2 retries by
        default: ``max_retries``; see ``_chat_errors``). ``sent`` is resolved once the body is
        written (an early send, :meth:`send_early`)."""
        import httpx2

        from forge_cli.backends.chat.errors import CHAT_FAILURES
        from forge_cli.backends.http.client import RetryPolicy, send_with_retries

        client = self._get_client()
        ctx = self._context(path)
        try:
            request = client.build_request(
                method, f"{self.base_url.rstrip('/')}{path}", json=body, headers=self._headers()
            )
        except (httpx2.InvalidURL, httpx2.UnsupportedProtocol) as exc:
            reason = ctx.clean(str(exc), limit=160)
            raise BackendConnectionError(f"could not connect to {ctx.url}: {reason}") from exc
        if sent is not None:
            from forge_cli.backends.http.early import signal_sent

            request.extensions["trace"] = signal_sent(sent, self._on_request_sent)
        return await send_with_retries(
            client,
            request,
            policy=RetryPolicy(max_retries=self.max_retries),
            ctx=ctx,
            sleep=self._sleep,
            failures=CHAT_FAILURES,
        )

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """Send ``request`` and yield Responses events as the chunks arrive."""
        async with aclosing(self.stream_batches(request)) as batches:
            async for batch in batches:
                for event in batch:
                    yield event

    async def stream_batches(self, request: Request) -> AsyncGenerator[list[StreamEvent], None]:
        """Like :meth:`stream`, but the events of the chunks one network read carried come as
        one list: the turn runner folds them into one snapshot (``stream.fold_batches``)."""
        from forge_cli.backends.chat.request import to_chat_body

        body = to_chat_body(request)
        self.dropped_tools = body.dropped_tools
        if body.dropped_tools:
            _log.warning(
                "the chat server cannot run hosted tools; dropped: %s",
                ", ".join(body.dropped_tools),
            )
        await self._drop_early()  # an early send nobody took is not this request's
        response = await self._send("POST", "/chat/completions", body.kwargs)
        async with aclosing(self._batches_of(response, request.model)) as batches:
            async for batch in batches:
                yield batch

    async def send_early(self, body: dict[str, Any]) -> None:
        """Start sending the Chat Completions ``body`` of a request whose typed :class:`Request`
        does not exist yet; return once it is written (or the attempt is over).

        ``forge ask`` writes a new conversation's first request before pydantic and the models
        are imported (``conversations.first_chat_body``, ADR-0020) and streams its reply with
        :meth:`stream_early` -- the same client, retries, timeouts and error wording, an error
        raised there as :meth:`stream_batches` would raise it.
        """
        sent_body = dict(body)
        await self._start_early(
            sent_body, lambda sent: self._send("POST", "/chat/completions", sent_body, sent)
        )

    def _early_batches(
        self, body: dict[str, Any], response: httpx2.Response
    ) -> AsyncGenerator[list[StreamEvent], None]:
        return self._batches_of(response, str(body.get("model", "")))

    async def _batches_of(
        self, response: httpx2.Response, model: str
    ) -> AsyncGenerator[list[StreamEvent], None]:
        """The events of ``response``'s chunks, one list per network read; closes it when done."""
        import httpx2

        from forge_cli.backends.http.client import BodyBudget, map_transport_error, reject_html

        translator = ChatStreamTranslator(model, split_think=self.think_tags)
        ctx = self._context("/chat/completions")
        where = ctx.url
        finished = False
        valid = 0
        try:
            reject_html(response, ctx)
            yield list(translator.start())
            reader = _ChunkReader(BodyBudget(where, self.limits.max_response_bytes), self.limits)
            async for items in _chunk_batches(response.aiter_bytes(), reader):
                read = _read_events(translator, items)
                valid += read.chunks
                finished = finished or read.finished
                if read.events:
                    yield read.events
                if read.failed:
                    return
        except httpx2.HTTPError as exc:
            raise map_transport_error(exc, ctx, "stream") from exc
        finally:
            await response.aclose()
        if valid == 0:  # worded as on the Responses path (stream/endings.py)
            raise ProtocolError(NO_VALID_EVENT)
        if not finished and translator.finish_reason is None:
            raise ProtocolError(NO_TERMINAL_EVENT)
        yield list(translator.finish())

    async def list_models(self) -> list[str]:
        """``GET /models``: the ids the server offers (Ollama, vLLM, llama.cpp, LM Studio and
        OpenAI all serve it), in its order. Failures are worded as on the Responses path."""
        import httpx2

        from forge_cli.backends.http.client import map_transport_error

        ctx = self._context("/models")
        limit = min(_MAX_JSON_BODY, self.limits.max_response_bytes)
        response = await self._send("GET", "/models")
        try:
            raw = await _read_body(response, limit)
        except httpx2.HTTPError as exc:
            raise map_transport_error(exc, ctx, "stream") from exc
        finally:
            await response.aclose()
        if raw is None:
            raise ProtocolError(
                f"the reply from {ctx.url} is larger than {describe_bytes(limit)}",
                hint="raise limits.max_response_mb (FORGE_MAX_RESPONSE_MB) if it is trusted",
            )
        try:
            page = json_loads(raw, max_depth=self.limits.max_json_depth)
        except ValueError as exc:
            raise ProtocolError(f"{ctx.url} did not return valid JSON ({exc})") from exc
        entries = page.get("data") if isinstance(page, dict) else None
        if not isinstance(entries, list):
            raise ProtocolError(f"{ctx.url} did not return a model list")
        ids = [entry.get("id") for entry in entries if isinstance(entry, dict)]
        return [model_id for model_id in ids if isinstance(model_id, str)]

    async def aclose(self) -> None:
        """Close the HTTP client (and drop an early send nobody took over)."""
        await self._drop_early()
        if self._client is not None:
            await self._client.aclose()
            self._client = None


async def _read_body(response: httpx2.Response, limit: int) -> bytes | None:
    """The whole decoded body, or ``None`` once it passes ``limit``."""
    chunks: list[bytes] = []
    size = 0
    async for piece in response.aiter_bytes():
        size += len(piece)
        if size > limit:
            return None
        chunks.append(piece)
    return b"".join(chunks)


_Item = dict[str, Any] | None
"""What the chunk reader gives for a read: chunks, and ``None`` at ``[DONE]``."""


class _ChunkReader:
    """Body bytes → chunk dicts, ``None`` for ``[DONE]``; non-JSON frames are skipped.

    Synchronous and fed once per network read, so the per-chunk path has no generator hops. The
    decoded size is counted (``budget``), each line bounded and split in linear time, an event's
    data bounded by ``limits.max_event_bytes``; JSON nested deeper than ``limits.max_json_depth``
    is skipped like any other bad frame. Most servers put one JSON object on one ``data:`` line:
    it is taken without waiting for the blank line, and parsed once.
    """

    __slots__ = (
        "_budget",
        "_data",
        "_max_depth",
        "_max_event",
        "_size",
        "_splitter",
        "done",
    )

    def __init__(self, budget: BodyBudget, limits: Limits = DEFAULT_LIMITS) -> None:
        self._budget = budget
        self._splitter = LineSplitter(limits.max_event_bytes)
        self._max_event = limits.max_event_bytes
        self._max_depth = limits.max_json_depth
        self._data: list[str] = []
        self._size = 0
        self.done = False
        """``[DONE]`` was read: nothing after it is looked at."""

    def feed(self, raw: bytes) -> list[_Item]:
        """The chunks the bytes of one read complete (ending with ``None`` at ``[DONE]``)."""
        out: list[_Item] = []
        lines = self._splitter.feed(self._budget.add(raw))
        if not lines:
            return out
        # One decode per read: a line end is never part of a UTF-8 sequence, so decoding the
        # joined lines gives the same text as decoding each line.
        text = b"\n".join(lines).decode("utf-8", errors="replace")
        split = text.split("\n")
        if not self._data:  # the usual read: ``data: {`` lines and blank lines, all of them one
            usual = list(filter(None, split))  # run, as the loop below would find (in C here)
            if (
                usual
                and all(map(str.startswith, usual, repeat("data: {")))
                and max(map(len, usual)) - 6 < self._max_event
            ):
                self._take(split, out)
                return out
        run: list[str] = []  # usual lines in a row and the blank lines between: see _take
        for line in split:
            if not self._data:
                if not line:
                    if run:
                        run.append(line)
                    continue  # the blank line after a chunk already taken
                if line.startswith("data: {") and len(line) - 6 < self._max_event:
                    run.append(line)  # the usual line: a whole chunk
                    continue
            if run:
                self._take(run, out)
                run = []
                if self.done:
                    break
            self._one(line, out)
            if self.done:
                break
        if run:
            self._take(run, out)
        return out

    def _take(self, run: list[str], out: list[_Item]) -> None:
        """Lines ``data: {...}`` that came one after another (with the blank lines between),
        each usually one whole chunk: parsed together when they all are (one call of the
        parser, ``jsonsafe.whole_objects``), else line by line as they always are."""
        chunks = whole_objects([line[6:].rstrip() for line in run if line], self._max_depth)
        if chunks is not None:
            out.extend(chunks)
            return
        for line in run:
            self._one(line, out)
            if self.done:
                return

    def _one(self, line: str, out: list[_Item]) -> None:
        """One line, on its own."""
        if not self._data:
            if not line:
                return  # the blank line after a chunk already taken
            if line.startswith("data: {"):  # the usual line: a whole chunk
                value = line[6:]
                if len(value) < self._max_event:
                    chunk = whole_object(value.rstrip(), self._max_depth)
                    if chunk is not None:
                        out.append(chunk)
                        return
        self._line(line, out)

    def flush(self) -> list[_Item]:
        """What a last line without a line end completes, at the end of the body."""
        out: list[_Item] = []
        last = self._splitter.flush()
        if last is not None and not self.done:
            self._line(last.decode("utf-8", errors="replace"), out)
        return out

    def _line(self, line: str, out: list[_Item]) -> None:
        data = self._data
        if line.startswith("data:"):
            value = line[5:].lstrip(" ")
            data.append(value)
            self._size += len(value) + 1
            if self._size > self._max_event:
                raise event_too_large("an event", self._max_event)
            if len(data) != 1:
                return
            text = value.strip()
            if text == "[DONE]":
                self._end(out)
                return
            chunk = _parse(text, self._max_depth, quiet=True)
            if chunk is not None:
                self._data, self._size = [], 0
                out.append(chunk)
        elif data and not line.strip():
            payload = "\n".join(data)
            self._data, self._size = [], 0
            if payload.strip() == "[DONE]":
                self._end(out)
                return
            chunk = _parse(payload, self._max_depth)
            if chunk is not None:
                out.append(chunk)

    def _end(self, out: list[_Item]) -> None:
        self._data, self._size = [], 0
        self.done = True
        out.append(None)


async def _chunk_batches(
    body: AsyncIterator[bytes], reader: _ChunkReader
) -> AsyncIterator[list[_Item]]:
    """The chunks of each network read, together (one generator hop per read, not per chunk)."""
    async for raw in body:
        batch = reader.feed(raw)
        if batch:
            yield batch
        if reader.done:
            return
    batch = reader.flush()
    if batch:
        yield batch


class _Read:
    """What one network read's chunks gave: the events, how many valid chunks there were,
    whether ``[DONE]`` came (``finished``) or an error chunk ended the stream (``failed``)."""

    __slots__ = ("chunks", "events", "failed", "finished")

    def __init__(self) -> None:
        self.events: list[StreamEvent] = []
        self.chunks = 0
        self.finished = False
        self.failed = False


def _read_events(translator: ChatStreamTranslator, batch: list[_Item]) -> _Read:
    """The events of one read's chunks ``batch``: its text held in the translator and released
    as one delta at the end (ADR-0026), any other chunk fed on its own in order."""
    read = _Read()
    events = read.events
    index, count = 0, len(batch)
    while index < count:
        held = translator.hold_texts(batch, index)  # the usual chunks, at once
        read.chunks += held - index
        if held == count:
            break
        chunk = batch[held]
        index = held + 1
        if chunk is None:
            read.finished = True
            break
        read.chunks += 1
        error = _stream_error(chunk)
        if error is not None:
            events.extend(translator.fail(*error))
            read.failed = True
            return read
        events.extend(translator.feed(chunk, hold=True))
    events.extend(translator.release())
    return read


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
