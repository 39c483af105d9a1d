"""What a browser and a stray client may do to ``forge serve``: Host, Origin and body-size checks.

A pure ASGI middleware (so SSE answers stream untouched) that runs before everything else:

- **Host** (DNS rebinding): the ``Host`` header must name the bound address -- for a loopback
  bind any of ``127.0.0.1``, ``localhost`` and ``[::1]`` -- with the bound port, or a configured
  name. Otherwise 400 ``invalid_host``.
- **Origin** (cross-site writes, including the "simple" ``text/plain`` and multipart POSTs a web
  page may send without a preflight): a request other than GET/HEAD/OPTIONS that carries an
  ``Origin`` (or a ``Sec-Fetch-Site`` of ``cross-site``/``same-site``) is refused with 403
  ``cross_origin_refused`` unless the origin is the server's own or configured. Clients that are
  not browsers send no ``Origin`` and are unaffected.
- **Body size**: ``Content-Length`` above the limit is refused before reading; a chunked body is
  counted as it arrives and cut off with 413 ``request_too_large`` as soon as it passes the
  limit, so the server never holds more than the limit in memory.
- **Body time**: a body that sends nothing for ``body_timeout`` seconds (a slow-drip client) is
  answered 408 ``request_timeout`` instead of holding its connection forever.
- **Failures**: a client that hangs up while its body arrives ends the request quietly; any other
  unexpected exception becomes a 500 ``server_error`` in the OpenAI shape (nothing of the
  exception is sent) and one sanitised line in the server's log, never a traceback that
  prints client-controlled text on the server's terminal.

Configured origins also get CORS answers (preflight and ``Access-Control-Allow-Origin``).
"""

from __future__ import annotations

import ipaddress
import logging
from dataclasses import dataclass

import anyio
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from forge_cli.engine.http_errors import error_response
from forge_cli.redact import redact
from forge_cli.sanitize import sanitize_inline

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "MULTIPART_SLACK",
    "GuardPolicy",
    "RequestGuard",
    "split_host",
]

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
"""The largest JSON request body ``forge serve`` reads (``serve.max_body_bytes``)."""

MULTIPART_SLACK = 64 * 1024
"""Room for the multipart framing around an upload of the largest file allowed."""

DEFAULT_BODY_TIMEOUT = 60.0
"""Seconds a request body may send nothing before the request is answered 408."""

_log = logging.getLogger("forge_cli.engine.serve")

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
_WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def split_host(value: str) -> tuple[str, int | None]:
    """``"[::1]:8080"`` -> ``("::1", 8080)``; ``"Example.com"`` -> ``("example.com", None)``.

    A malformed port gives port ``-1`` (never equal to a bound port).
    """
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ("" if not rest else "x")
    elif value.count(":") == 1:
        name, _, port_text = value.partition(":")
    else:
        name, port_text = value, ""
    if not port_text:
        return name, None
    return name, int(port_text) if port_text.isdigit() else -1


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    """What :class:`RequestGuard` lets through.

    ``allowed_hosts`` entries are names (any port) or ``name:port``; ``"*"`` turns the Host check
    off. ``allowed_origins`` are full origins (``https://app.example``); ``"*"`` allows any.
    """

    host: str = "127.0.0.1"
    port: int | None = None
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_upload_bytes: int = 50 * 1024 * 1024 + MULTIPART_SLACK
    body_timeout: float = DEFAULT_BODY_TIMEOUT

    def host_allowed(self, header: str) -> bool:
        """Whether a ``Host`` header names this server."""
        if "*" in self.allowed_hosts:
            return True
        name, port = split_host(header)
        if not name:
            return False
        for entry in self.allowed_hosts:
            allowed_name, allowed_port = split_host(entry)
            if name == allowed_name and (allowed_port is None or allowed_port == port):
                return True
        if not self._port_matches(port):
            return False
        bound = split_host(self.host)[0]
        if name == bound:
            return True
        # A loopback bind answers to every loopback spelling; a wildcard bind to any address
        # literal (an IP in Host cannot be rebound by DNS).
        local_bind = _is_loopback(bound) or bound in _WILDCARDS
        if local_bind and (name in _LOOPBACK_NAMES or _is_loopback(name)):
            return True
        return bound in _WILDCARDS and _is_ip(name)

    def _port_matches(self, port: int | None) -> bool:
        if self.port is None:
            return True
        return port == self.port or (port is None and self.port == 80)

    def origin_allowed(self, origin: str) -> bool:
        """Whether a browser page at ``origin`` may write."""
        if "*" in self.allowed_origins:
            return True
        origin = origin.strip().rstrip("/").lower()
        if origin in (o.rstrip("/").lower() for o in self.allowed_origins):
            return True
        scheme, sep, rest = origin.partition("://")
        if not sep or scheme != "http":
            return False
        # The server's own pages (same origin) may write.
        return "/" not in rest and "*" not in self.allowed_hosts and self.host_allowed(rest)

    def cors_origin(self, origin: str) -> bool:
        """Whether ``origin`` is configured for CORS answers."""
        return bool(origin) and origin != "null" and self.origin_allowed(origin)

    def body_limit(self, method: str, path: str) -> int:
        """The largest body accepted for a request."""
        if method == "POST" and path.rstrip("/") == "/v1/files":
            return self.max_upload_bytes
        return self.max_body_bytes


class RequestTooLarge(Exception):
    """Raised from ``receive`` when a streamed body passes its limit."""


class BodyTimeout(Exception):
    """Raised from ``receive`` when a body sends nothing for ``body_timeout`` seconds."""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def _too_large_message(limit: int) -> str:
    return (
        f"the request body is larger than the limit of {limit} bytes "
        "(serve.max_body_bytes for JSON; uploads are limited by the largest file size)"
    )


class RequestGuard:
    """The middleware; see the module docstring."""

    def __init__(self, app: ASGIApp, policy: GuardPolicy) -> None:
        self._app = app
        self._policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        policy = self._policy
        method = str(scope.get("method", "GET")).upper()
        host = _header(scope, b"host") or ""
        if not policy.host_allowed(host):
            answer = error_response(
                400,
                "this forge serve instance does not answer to that Host name "
                "(add it to serve.allowed_hosts or --allow-host)",
                "invalid_request_error",
                code="invalid_host",
            )
            await answer(scope, receive, send)
            return
        origin = _header(scope, b"origin")
        cors = origin is not None and policy.cors_origin(origin)
        if method not in _SAFE_METHODS and not self._write_allowed(scope, origin):
            answer = error_response(
                403,
                "cross-origin writes to forge serve are refused "
                "(allow the origin with serve.allowed_origins or --allow-origin)",
                "invalid_request_error",
                code="cross_origin_refused",
            )
            await answer(scope, receive, send)
            return
        if method == "OPTIONS" and cors and origin is not None:
            await self._preflight(send, origin)
            return
        limit = policy.body_limit(method, str(scope.get("path", "")))
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > limit:
            await error_response(
                413, _too_large_message(limit), "invalid_request_error", code="request_too_large"
            )(scope, receive, send)
            return
        await self._bounded(scope, receive, send, limit, origin if cors else None)

    def _write_allowed(self, scope: Scope, origin: str | None) -> bool:
        if origin is not None:
            return self._policy.origin_allowed(origin) and origin != "null"
        fetch_site = (_header(scope, b"sec-fetch-site") or "").lower()
        return fetch_site not in ("cross-site", "same-site")

    async def _preflight(self, send: Send, origin: str) -> None:
        headers = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-allow-methods", b"GET, POST, DELETE, OPTIONS"),
            (b"access-control-allow-headers", b"authorization, content-type"),
            (b"access-control-max-age", b"600"),
            (b"vary", b"origin"),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    async def _bounded(
        self, scope: Scope, receive: Receive, send: Send, limit: int, cors: str | None
    ) -> None:
        received = 0
        started = False
        body_done = False
        timeout = self._policy.body_timeout

        async def counting_receive() -> Message:
            nonlocal received, body_done
            if body_done:  # only "http.disconnect" is left: wait for it as long as it takes
                return await receive()
            try:
                with anyio.fail_after(timeout):
                    message = await receive()
            except TimeoutError:
                raise BodyTimeout from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise RequestTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cors is not None:
                    headers = list(message.get("headers", []))
                    headers.append((b"access-control-allow-origin", cors.encode("latin-1")))
                    headers.append((b"vary", b"origin"))
                    message = {**message, "headers": headers}
            await send(message)

        try:
            await self._app(scope, counting_receive, tracking_send)
        except RequestTooLarge:
            answer = error_response(
                413, _too_large_message(limit), "invalid_request_error", code="request_too_large"
            )
        except BodyTimeout:
            answer = error_response(
                408,
                f"the request body sent nothing for {timeout:g} seconds",
                "invalid_request_error",
                code="request_timeout",
            )
        except ClientDisconnect:
            return  # the client hung up while its body arrived: nobody to answer
        except Exception as exc:  # a bug: one clean log line and an OpenAI-shaped 500
            _log_failure(scope, exc)
            answer = error_response(
                500,
                "forge serve failed to answer this request (the server's log has the reason)",
                "server_error",
                code="server_error",
            )
        else:
            return
        if not started:  # else the answer is cut short: uvicorn closes the connection
            await answer(scope, receive, send)


def _log_failure(scope: Scope, exc: Exception) -> None:
    """One line for the server's log; the path and message may be the client's own text."""
    method, path = str(scope.get("method", "")), str(scope.get("path", ""))[:200]
    text = f"{method} {path} failed: {type(exc).__name__}: {str(exc)[:500]}"
    _log.error("%s", sanitize_inline(redact(text)))
