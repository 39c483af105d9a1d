"""Which HTTP failures the Chat Completions backend retries.

The backend sends through the shared stack in ``_http`` (architecture §3.9). It keeps the openai
SDK's wider retries (docs/adr/0014-chat-path-http.md): every request failure is retried -- the SDK
retried any ``httpx2.RequestError``, a read timeout while waiting for the headers included --
per the shared :class:`~._http.RetryPolicy`. How a failure is worded is *not* the chat path's
own: both APIs say the same thing for the same failure (``_http.map_transport_error``,
``_http.status_error``).
"""

from __future__ import annotations

import httpx2

from forge_cli.backends.http.client import FailureMap

__all__ = ["CHAT_FAILURES"]


def _retryable(exc: httpx2.HTTPError) -> bool:
    """Any failure to get a reply (connect, read, write, timeouts, protocol), as the SDK did."""
    return isinstance(exc, httpx2.RequestError)


CHAT_FAILURES = FailureMap(retryable=_retryable)
"""What :func:`~._http.send_with_retries` retries for the chat backend; errors are worded as on
the Responses path."""
