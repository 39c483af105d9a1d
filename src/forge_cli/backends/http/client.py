"""Shared httpx2 plumbing for our own HTTP backends: client, retry policy, error mapping.

Everything that turns an httpx2 exception or a non-2xx reply into a :mod:`forge_cli.errors` type
lives here, so there is exactly one place to read (ARCHITECTURE.md convention 9). The retry
policy copies the openai SDK's (protocol.md §6.2): retry only before the first byte of a reply, on
connection errors and HTTP 408/409/429/5xx, with capped exponential backoff that honours
``Retry-After`` / ``retry-after-ms`` and the ``x-should-retry`` override.

Secrets: the API key is held in a :class:`Secret` whose ``repr`` hides it, and every message we
build passes through :meth:`ErrorContext.clean`, which redacts the key and strips control
characters, so a server that echoes the key back cannot make us print it.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx2

from forge_cli.backends.http.error_body import error_json
from forge_cli.errors import (
    AuthError,
    BackendConnectionError,
    BackendError,
    BackendHTTPError,
    BackendTimeoutError,
    ConfigError,
    ProtocolError,
)
from forge_cli.limits import DEFAULT_LIMITS, Limits, describe_bytes
from forge_cli.redact import quoted_forms, redact
from forge_cli.sanitize import sanitize

__all__ = [
    "BodyBudget",
    "ErrorContext",
    "FailureMap",
    "RetryPolicy",
    "Secret",
    "SleepFunction",
    "bound_bodies",
    "build_client",
    "display_url",
    "map_transport_error",
    "mark_sent",
    "parse_retry_after",
    "read_error_body",
    "reject_html",
    "send_with_retries",
    "server_message",
    "status_error",
]

SleepFunction = Callable[[float], Awaitable[None]]
"""How retries wait; injectable so tests record delays instead of waiting."""

Phase = Literal["connect", "stream"]
"""Before the reply's headers arrived ("connect") or while reading its body ("stream")."""

_MAX_SERVER_MESSAGE = 300
_MAX_ERROR_BODY = DEFAULT_LIMITS.max_error_body_bytes


class Secret:
    """A string that never shows itself in ``repr``/``str`` (an API key)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret itself, for the one place that must send it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how long to wait before retrying a request that got no usable reply.

    Defaults follow the openai SDK: 2 retries, 0.5 s × 2ⁿ capped at 8 s, reduced by up to 25 %
    jitter; a server's ``Retry-After`` is honoured when it is at most ``max_retry_after`` seconds
    and disables the retry when it is longer.
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    jitter: float = 0.25
    max_retry_after: float = 120.0
    retry_statuses: frozenset[int] = field(default=frozenset({408, 409, 429}))

    def __post_init__(self) -> None:
        if self.max_retries < 0 or self.initial_delay < 0 or self.max_delay < 0:
            raise ConfigError("retry settings must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ConfigError("the retry jitter must be between 0 and 1")

    def retryable_status(self, status_code: int, headers: Mapping[str, str]) -> bool:
        """Whether a reply with this status may be retried (``x-should-retry`` wins)."""
        override = headers.get("x-should-retry", "").strip().lower()
        if override in ("true", "false"):
            return override == "true"
        return status_code in self.retry_statuses or status_code >= 500

    def backoff(self, retries_taken: int, rand: float | None = None) -> float:
        """The exponential delay before retry number ``retries_taken + 1``, with jitter.

        ``rand`` in [0, 1) replaces the random draw (for tests).
        """
        base = min(self.initial_delay * 2.0 ** min(retries_taken, 62), self.max_delay)
        draw = random.random() if rand is None else rand  # jitter, not crypto
        return base * (1.0 - self.jitter * draw)

    def delay_for(
        self,
        retries_taken: int,
        headers: Mapping[str, str] | None = None,
        *,
        now: datetime | None = None,
        rand: float | None = None,
    ) -> float | None:
        """Seconds to wait before the next retry, or ``None`` when we must not retry.

        Returns ``None`` when the retries are used up or the server asked for a wait longer
        than :attr:`max_retry_after`.
        """
        if retries_taken >= self.max_retries:
            return None
        requested = parse_retry_after(headers or {}, now=now)
        if requested is not None:
            if requested > self.max_retry_after:
                return None
            if requested > 0:
                return requested
        return self.backoff(retries_taken, rand)


def parse_retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """The wait a server asked for, in seconds: ``retry-after-ms``, else ``retry-after``.

    ``retry-after`` may be seconds (integer or float) or an HTTP date. Unparseable values give
    ``None`` (use the normal backoff).
    """
    milliseconds = _finite_float(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000.0
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _finite_float(raw)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - (now or datetime.now(UTC))).total_seconds()


def _finite_float(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def display_url(url: str | httpx2.URL) -> str:
    """A URL safe to show: no user info, no query string, no fragment."""
    parts = urlsplit(str(url))
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass(frozen=True, slots=True)
class ErrorContext:
    """What an error message needs: where we were talking to, and what must never be shown."""

    url: str
    env_var: str | None = None
    secrets: tuple[Secret, ...] = ()
    key_sent: bool = True
    retry_after: float | None = None
    """The wait a refusing reply asked for (``Retry-After``), said in its error line."""

    def with_reply(self, status_code: int, headers: Mapping[str, str]) -> ErrorContext:
        """This context for a failed reply: a 429 or 503 that asked for a wait carries it."""
        if status_code not in (429, 503):
            return self
        wait = parse_retry_after(headers)
        return replace(self, retry_after=wait) if wait is not None and wait > 0 else self

    def clean(self, text: str, limit: int = _MAX_SERVER_MESSAGE) -> str:
        """One line of text: secrets redacted, control characters removed, truncated."""
        for secret in self.secrets:
            value = secret.reveal()
            if value:
                for form in quoted_forms(value):
                    text = text.replace(form, "***")
        text = " ".join(sanitize(redact(text)).split())
        return text if len(text) <= limit else text[: limit - 1] + "…"


def mark_sent(
    on_sent: Callable[[], None],
) -> Callable[[httpx2.Request], Awaitable[None]]:
    """An httpx2 ``request`` event hook that calls ``on_sent`` once the request is sent
    (its body written): the CLI warms up from then on (``StartUp.request_sent``)."""

    async def trace(name: str, info: dict[str, Any]) -> None:
        if name.endswith("send_request_body.complete"):
            on_sent()

    async def hook(request: httpx2.Request) -> None:
        request.extensions.setdefault("trace", trace)

    return hook


async def _read_bounded(response: httpx2.Response, limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` decoded bytes of a reply not yet read, and whether there was more.

    Decoding happens in bounded pieces (httpx2 drains its decompressor in small steps), so a
    compression bomb is never inflated past the limit. A cut or undecodable body gives what was
    read.
    """
    probe = httpx2.Response(response.status_code, headers=response.headers, stream=response.stream)
    chunks: list[bytes] = []
    size = 0
    over = False
    try:
        async for chunk in probe.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                over = True
                break
    except httpx2.HTTPError:
        pass
    finally:
        await probe.aclose()
    return b"".join(chunks)[:limit], over


def bound_bodies(
    max_error_body: int, max_body: int | None = None
) -> Callable[[httpx2.Response], Awaitable[None]]:
    """A response event hook that reads bodies within bounds before anyone reads them whole.

    A non-2xx body is read (decoded, in small pieces) up to ``max_error_body``; the rest is
    dropped unread -- an error page is read whole by whoever raises the error (the openai SDK
    calls ``aread()``), so a gzip bomb sent with a 400 would otherwise be inflated in full. With
    ``max_body``, a successful body is read the same way and one over the limit is a
    :class:`ProtocolError` (for clients that parse whole JSON documents); without it successful
    replies stream untouched and their readers count what they decode (:class:`BodyBudget`).

    Hooks run for every reply the client receives, whatever transport carried it (an HTTP proxy
    from the environment too). The body is replaced by the bounded, already decoded bytes.
    """

    async def hook(response: httpx2.Response) -> None:
        if response.is_success and max_body is None:
            return
        limit = max_body if response.is_success and max_body is not None else max_error_body
        body, over = await _read_bounded(response, limit)
        if response.is_success and over:
            raise ProtocolError(
                f"the reply from {display_url(response.request.url)} is larger than "
                f"{describe_bytes(limit)} once decompressed; it was stopped",
                hint="raise limits.max_response_mb (FORGE_MAX_RESPONSE_MB) for a trusted server",
            )
        for name in ("content-encoding", "content-length", "transfer-encoding"):
            response.headers.pop(name, None)
        response.headers["content-length"] = str(len(body))
        response.stream = httpx2.ByteStream(body)

    return hook


class BodyBudget:
    """Counts the decoded bytes of one successful reply; raises once they pass the limit."""

    __slots__ = ("_limit", "_size", "_url")

    def __init__(self, url: str, limit: int = DEFAULT_LIMITS.max_response_bytes) -> None:
        self._url = url
        self._limit = limit
        self._size = 0

    def add(self, chunk: bytes) -> bytes:
        """Count ``chunk`` (returned as is); a :class:`ProtocolError` once over the limit."""
        self._size += len(chunk)
        if self._size > self._limit:
            raise ProtocolError(
                f"the reply from {self._url} is larger than {describe_bytes(self._limit)} "
                "once decompressed; it was stopped",
                hint="raise limits.max_response_mb (FORGE_MAX_RESPONSE_MB) for a trusted server",
            )
        return chunk


def build_client(
    *,
    connect_timeout: float,
    read_timeout: float,
    trust_env: bool = True,
    limits: Limits = DEFAULT_LIMITS,
    on_request_sent: Callable[[], None] | None = None,
) -> httpx2.AsyncClient:
    """An AsyncClient with our timeouts: ``read`` is the idle time allowed between bytes.

    httpx2's own transport carries every request, ``http://`` as ``https://`` (TLS always with
    certificate verification), and with ``trust_env`` an HTTP proxy from the environment
    (``HTTPS_PROXY`` …) is honoured as httpx2 honours it. Redirects are followed (httpx drops the
    ``Authorization`` header when one leads to another host); error bodies are cut to
    ``limits.max_error_body_bytes`` by an event hook.
    ``on_request_sent`` is called each time a request's body is written (:func:`mark_sent`).
    """
    timeout = httpx2.Timeout(
        connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout
    )
    return httpx2.AsyncClient(
        timeout=timeout,
        follow_redirects=True,
        trust_env=trust_env,
        event_hooks={
            "request": [mark_sent(on_request_sent)] if on_request_sent is not None else [],
            "response": [bound_bodies(limits.max_error_body_bytes)],
        },
    )


def _timeout_seconds(exc: httpx2.TimeoutException, kind: str) -> str:
    try:
        timeouts = exc.request.extensions.get("timeout", {})
    except RuntimeError:  # the exception was raised without a request attached
        timeouts = {}
    value = timeouts.get(kind) if isinstance(timeouts, dict) else None
    return f" after {value:g} s" if isinstance(value, int | float) else ""


def map_transport_error(exc: httpx2.HTTPError, ctx: ErrorContext, phase: Phase) -> BackendError:
    """Our error for an httpx2 transport failure, most specific first.

    The one wording of every backend and API (Responses, Chat Completions, the knowledge
    client): the same failure reads the same whichever API met it (docs/backends.md, Errors).
    """
    reason = ctx.clean(str(exc) or type(exc).__name__, limit=160)
    if isinstance(exc, httpx2.ConnectTimeout | httpx2.PoolTimeout):
        waited = _timeout_seconds(exc, "connect")
        return BackendTimeoutError(
            f"timed out{waited} connecting to {ctx.url}",
            hint="is the server running and reachable? raise the connect timeout if it is slow",
        )
    if isinstance(exc, httpx2.TimeoutException):
        waited = _timeout_seconds(exc, "read")
        return BackendTimeoutError(
            f"no data from {ctx.url}{waited} (idle read timeout)",
            hint="the server may be overloaded; raise the read timeout for slow models",
        )
    if phase == "stream" and isinstance(exc, httpx2.TransportError):
        return ProtocolError(
            f"the stream ended early: the connection to {ctx.url} was lost ({reason})"
        )
    if isinstance(exc, httpx2.DecodingError):
        return ProtocolError(f"the reply from {ctx.url} could not be decoded ({reason})")
    if isinstance(exc, httpx2.ConnectError):
        return BackendConnectionError(
            f"could not connect to {ctx.url}: {reason}", hint="is the server running?"
        )
    if isinstance(exc, httpx2.RemoteProtocolError | httpx2.ReadError | httpx2.WriteError):
        return BackendConnectionError(f"{ctx.url} closed the connection without a reply ({reason})")
    if isinstance(exc, httpx2.TransportError):
        return BackendConnectionError(f"could not talk to {ctx.url}: {reason}")
    return BackendError(f"request to {ctx.url} failed: {reason}")


def server_message(body: bytes, ctx: ErrorContext) -> str | None:
    """The server's explanation: ``{"error": {"message": ...}}`` (and variants) or plain text."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    data: Any = error_json(text)  # JSON, or the JSON in an SSE-framed error body
    if isinstance(data, dict):
        found = _message_in(data)
        if found:
            return ctx.clean(found)
        return ctx.clean(text)
    if text.lstrip().startswith("<"):
        return None  # an HTML error page says nothing useful on one line
    return ctx.clean(text)


def _message_in(data: dict[str, Any]) -> str | None:
    error = data.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        if isinstance(message, str) and message.strip():
            return message
    if isinstance(error, str) and error.strip():
        return error
    for key in ("message", "detail"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def status_error(status_code: int, body: bytes, ctx: ErrorContext) -> BackendHTTPError:
    """Our error for a non-2xx reply; 401/403 become :class:`AuthError` naming the env var.

    The one wording of every API. What the server said is chained under it (redacted), so a
    ``--debug`` traceback shows it.
    """
    error = _status_error(status_code, body, ctx)
    error.__cause__ = _ServerReply(status_code, error.server_message)
    return error


def _wait_words(seconds: float) -> str:
    """``45 s``, ``10 min``, ``2 h 5 min``: a server's requested wait, rounded up."""
    total = max(1, math.ceil(seconds))
    if total < 120:
        return f"{total} s"
    minutes = math.ceil(total / 60)
    if minutes < 120:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


class _ServerReply(Exception):
    """The failed reply, chained under our error so a ``--debug`` traceback shows what the
    server said (already redacted and cleaned)."""

    def __init__(self, status_code: int, server_message: str | None) -> None:
        said = f" - {server_message}" if server_message else ""
        super().__init__(f"HTTP {status_code}{said}")


def _status_error(status_code: int, body: bytes, ctx: ErrorContext) -> BackendHTTPError:
    message = server_message(body, ctx)
    suffix = f": {message}" if message else ""
    if status_code in (401, 403):
        refused = "refused the credentials" if status_code == 401 else "denied access"
        missing = ""
        if not ctx.key_sent:
            missing = f" (no API key: {ctx.env_var} is not set)" if ctx.env_var else ""
        return AuthError(
            f"{ctx.url} {refused} (HTTP {status_code}){missing}{suffix}",
            status_code=status_code,
            env_var=ctx.env_var,
            server_message=message,
        )
    if ctx.retry_after is not None:
        suffix += f" (the server asked to wait {_wait_words(ctx.retry_after)} before trying again)"
    return BackendHTTPError(
        f"{ctx.url} returned HTTP {status_code}{suffix}",
        status_code=status_code,
        server_message=message,
    )


def reject_html(response: httpx2.Response, ctx: ErrorContext) -> None:
    """A web page instead of an event stream almost always means a wrong base URL (both APIs)."""
    if response.headers.get("content-type", "").lower().startswith("text/html"):
        raise ProtocolError(
            f"{ctx.url} answered with a web page, not an event stream",
            hint="check the base URL; it usually ends in /v1",
        )


async def read_error_body(response: httpx2.Response, limit: int = _MAX_ERROR_BODY) -> bytes:
    """Up to ``limit`` decoded bytes of an error reply's body (the rest is never inflated);
    transport and decoding failures give what was read so far."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
    except httpx2.HTTPError:
        pass
    return b"".join(chunks)[:limit]


def _retryable_transport(exc: httpx2.HTTPError) -> bool:
    """Connection-phase failures worth retrying: refused/reset, connect timeout, early close.

    A read timeout while waiting for the reply's headers is not retried: the server may be busy
    with the request, and waiting the whole idle timeout again rarely helps.
    """
    if isinstance(exc, httpx2.ConnectTimeout | httpx2.PoolTimeout):
        return True
    if isinstance(exc, httpx2.TimeoutException):
        return False
    return isinstance(exc, httpx2.ConnectError | httpx2.RemoteProtocolError | httpx2.ReadError)


@dataclass(frozen=True, slots=True)
class FailureMap:
    """Which transport failures a backend retries, and how it words what it cannot retry.

    The defaults are the Responses backend's. The Chat Completions backend keeps the wider
    retries it had under the openai SDK (docs/adr/0014-chat-path-http.md) but words its errors
    with the same functions, so one failure reads the same on both APIs.
    """

    retryable: Callable[[httpx2.HTTPError], bool] = _retryable_transport
    transport: Callable[[httpx2.HTTPError, ErrorContext, Phase], BackendError] = map_transport_error
    status: Callable[[int, bytes, ErrorContext], BackendError] = status_error


_DEFAULT_FAILURES = FailureMap()


async def send_with_retries(
    client: httpx2.AsyncClient,
    request: httpx2.Request,
    *,
    policy: RetryPolicy,
    ctx: ErrorContext,
    sleep: SleepFunction = asyncio.sleep,
    failures: FailureMap = _DEFAULT_FAILURES,
) -> httpx2.Response:
    """Send ``request`` and return the streaming 2xx reply (the caller must close it).

    Retries only before the reply's first byte, per ``policy``; once a 2xx reply is returned
    nothing is ever replayed. Every failure is raised as a :mod:`forge_cli.errors` type, worded
    by ``failures``.
    """
    retries_taken = 0
    while True:
        try:
            response = await client.send(request, stream=True)
        except httpx2.HTTPError as exc:
            delay = policy.delay_for(retries_taken) if failures.retryable(exc) else None
            if delay is None:
                raise failures.transport(exc, ctx, "connect") from exc
        else:
            if response.is_success:
                return response
            try:
                body = await read_error_body(response)
            finally:
                await response.aclose()
            headers = response.headers
            delay = None
            if policy.retryable_status(response.status_code, headers):
                delay = policy.delay_for(retries_taken, headers)
            if delay is None:
                raise failures.status(
                    response.status_code, body, ctx.with_reply(response.status_code, headers)
                )
        await sleep(delay)
        retries_taken += 1
