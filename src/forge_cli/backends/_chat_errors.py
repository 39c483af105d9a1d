"""The one place where openai SDK errors become Forge errors (architecture §3.9).

Most specific class first: a timeout is a connection error in the SDK's tree, and an
authentication failure is a status error.
"""

from __future__ import annotations

from typing import Any

from forge_cli.backends._error_body import error_json
from forge_cli.errors import (
    AuthError,
    BackendConnectionError,
    BackendError,
    BackendHTTPError,
    BackendTimeoutError,
    ProtocolError,
    StreamError,
)
from forge_cli.redact import redact
from forge_cli.sanitize import sanitize_inline

__all__ = ["map_openai_error"]


def map_openai_error(exc: Exception, *, base_url: str, env_var: str | None) -> BackendError:
    """The Forge error for an exception raised by the openai SDK (imported lazily)."""
    import openai

    where = base_url.rstrip("/")
    if isinstance(exc, openai.APITimeoutError):
        return BackendTimeoutError(f"timed out talking to {where}")
    if isinstance(exc, openai.APIConnectionError):
        return BackendConnectionError(f"cannot connect to {where}: {_cause(exc)}")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return AuthError(
            f"{where} refused the credentials (HTTP {exc.status_code})",
            status_code=exc.status_code,
            env_var=env_var,
            server_message=_server_message(exc.body),
        )
    if isinstance(exc, openai.APIStatusError):
        server = _server_message(exc.body)
        detail = f": {server}" if server else ""
        return BackendHTTPError(
            f"{where} answered HTTP {exc.status_code}{detail}",
            status_code=exc.status_code,
            server_message=server,
        )
    if isinstance(exc, openai.APIResponseValidationError):
        return ProtocolError(f"{where} sent a reply we cannot understand")
    if isinstance(exc, openai.APIError):
        return StreamError(f"{where} reported an error: {_clean(exc.message)}")
    return BackendError(f"chat request to {where} failed: {type(exc).__name__}: {_clean(str(exc))}")


def _clean(text: str, limit: int = 300) -> str:
    """One line of server text: keys redacted, control characters shown, truncated."""
    text = " ".join(sanitize_inline(redact(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    text = str(cause) if cause is not None else str(exc)
    return _clean(text, 200) or type(exc).__name__


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
