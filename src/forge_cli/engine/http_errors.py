"""Errors as HTTP answers in the OpenAI shape ``{"error": {message, type, param, code}}``.

The one place where our exception tree meets HTTP status codes for ``forge serve``.
"""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request as HTTPRequest

from forge_cli.engine.safe_json import JSONResponse
from forge_cli.errors import (
    AuthError,
    BackendError,
    ForgeError,
    NotFoundError,
    UsageError,
)

__all__ = ["error_body", "error_response", "forge_error_handler", "http_error_handler"]


def error_body(
    message: str, kind: str, *, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """The OpenAI error object."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_response(
    status: int, message: str, kind: str, *, code: str | None = None, param: str | None = None
) -> JSONResponse:
    """A JSON error answer."""
    return JSONResponse(error_body(message, kind, code=code, param=param), status_code=status)


def status_of(exc: ForgeError) -> tuple[int, str, str]:
    """HTTP status, OpenAI error type and code for one of our errors (most specific first)."""
    if isinstance(exc, NotFoundError):
        return 404, "invalid_request_error", "not_found"
    if isinstance(exc, AuthError):
        return 401, "authentication_error", "invalid_api_key"
    if isinstance(exc, UsageError):
        return 400, "invalid_request_error", "invalid_value"
    if isinstance(exc, BackendError):
        return 502, "server_error", "upstream_error"
    return 500, "server_error", "server_error"


async def forge_error_handler(_request: HTTPRequest, exc: Exception) -> JSONResponse:
    """Starlette handler for :class:`ForgeError`."""
    assert isinstance(exc, ForgeError)
    status, kind, code = status_of(exc)
    return error_response(status, exc.one_line(), kind, code=code)


async def http_error_handler(_request: HTTPRequest, exc: Exception) -> JSONResponse:
    """Starlette handler for routing errors (unknown path, wrong method)."""
    assert isinstance(exc, HTTPException)
    kind = "invalid_request_error" if exc.status_code < 500 else "server_error"
    message = exc.detail if isinstance(exc.detail, str) else "request failed"
    return error_response(exc.status_code, message, kind, code=str(exc.status_code))
