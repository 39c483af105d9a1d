"""The one place where the Chat Completions backend's HTTP failures become Forge errors.

The backend sends through the shared stack in ``_http`` (architecture §3.9); this module says
which failures it retries and how it words the ones it cannot. Both are what the backend did when
it went through the openai SDK (docs/adr/0014-chat-path-http.md), so the one-line errors a user
sees did not change when the SDK left the path:

- every request failure is retried (the SDK retried any ``httpx2.RequestError``, read timeouts
  while waiting for the headers included), per the shared :class:`~._http.RetryPolicy`;
- a timeout is ``timed out talking to URL``; any other request failure ``cannot connect to
  URL: reason``;
- 401/403 are :class:`AuthError` naming the key's environment variable, any other status a
  :class:`BackendHTTPError`, both with the server's message read the way the SDK read it (the
  ``error`` member of a JSON body, an SSE-framed error, or plain text; never an HTML page).
"""

from __future__ import annotations

from typing import Any

import httpx2

from forge_cli.backends._error_body import error_json
from forge_cli.backends._http import ErrorContext, FailureMap, Phase
from forge_cli.errors import (
    AuthError,
    BackendConnectionError,
    BackendError,
    BackendHTTPError,
    BackendTimeoutError,
    ProtocolError,
)
from forge_cli.jsonsafe import loads as json_loads
from forge_cli.redact import redact
from forge_cli.sanitize import sanitize_inline

__all__ = ["CHAT_FAILURES", "chat_status_error", "chat_transport_error", "stream_read_error"]


def _retryable(exc: httpx2.HTTPError) -> bool:
    """Any failure to get a reply (connect, read, write, timeouts, protocol), as the SDK did."""
    return isinstance(exc, httpx2.RequestError)


def chat_transport_error(exc: httpx2.HTTPError, ctx: ErrorContext, phase: Phase) -> BackendError:
    """Our error for a request that got no reply (after the retries)."""
    del phase  # the same words before and after the retries
    if isinstance(exc, httpx2.TimeoutException):
        return BackendTimeoutError(f"timed out talking to {ctx.url}")
    return BackendConnectionError(f"cannot connect to {ctx.url}: {_cause(exc)}")


def chat_status_error(status_code: int, body: bytes, ctx: ErrorContext) -> BackendError:
    """Our error for a non-2xx reply; 401/403 become :class:`AuthError` naming the env var."""
    server = _server_message(_error_body(body))
    error: BackendHTTPError
    if status_code in (401, 403):
        error = AuthError(
            f"{ctx.url} refused the credentials (HTTP {status_code})",
            status_code=status_code,
            env_var=ctx.env_var,
            server_message=server,
        )
    else:
        detail = f": {server}" if server else ""
        error = BackendHTTPError(
            f"{ctx.url} answered HTTP {status_code}{detail}",
            status_code=status_code,
            server_message=server,
        )
    error.__cause__ = _ServerReply(status_code, server)
    return error


class _ServerReply(Exception):
    """The failed reply, chained under our error so a ``--debug`` traceback shows what the
    server said (redacted), as the SDK's status error did."""

    def __init__(self, status_code: int, server_message: str | None) -> None:
        said = f" - {server_message}" if server_message else ""
        super().__init__(f"HTTP {status_code}{said}")


def stream_read_error(exc: httpx2.HTTPError, where: str) -> BackendError:
    """Our error for a failure while the reply's body streams (nothing is retried then)."""
    if isinstance(exc, httpx2.TimeoutException):
        return BackendTimeoutError(f"timed out reading from {where}")
    if isinstance(exc, httpx2.TransportError):
        return BackendConnectionError(redact(f"the connection to {where} was lost: {exc}"))
    return ProtocolError(f"the stream from {where} could not be decoded: {_clean(str(exc), 200)}")


CHAT_FAILURES = FailureMap(
    retryable=_retryable, transport=chat_transport_error, status=chat_status_error
)
"""What :func:`~._http.send_with_retries` retries and raises for the chat backend."""


def _clean(text: str, limit: int = 300) -> str:
    """One line of server text: keys redacted, control characters shown, truncated."""
    text = " ".join(sanitize_inline(redact(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cause(exc: BaseException) -> str:
    return _clean(str(exc), 200) or type(exc).__name__


def _error_body(raw: bytes) -> Any:
    """The body as JSON when it is JSON (its ``error`` member when it has one), else its text."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        body: Any = json_loads(text)
    except ValueError:
        return text
    return body.get("error", body) if isinstance(body, dict) else body


def _server_message(body: Any) -> str | None:
    """The server's explanation, redacted; an HTML error page says nothing useful on one line."""
    if isinstance(body, str) and body.lstrip().startswith("data:"):
        framed = error_json(body)  # an error sent as an event stream
        body = framed if isinstance(framed, dict) else body
    if isinstance(body, dict):
        message = body.get("message")
        if not isinstance(message, str):
            inner = body.get("error")
            message = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(message, str) and message.strip():
            return _clean(message)
    if isinstance(body, str) and body.strip():
        if body.lstrip().startswith("<"):
            return None
        return _clean(body)
    return None
