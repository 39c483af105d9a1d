"""The backend seam: something that turns a Request into a stream of events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: ``forge ask`` sends before the request model is built
    from forge_cli.protocol.events import StreamEvent
    from forge_cli.protocol.request import Request

__all__ = ["Backend"]


@runtime_checkable
class Backend(Protocol):
    """A backend streams the events of one response.

    ``stream`` is an async generator: iterate it to receive events; closing it (``aclose``, or
    cancelling the task that iterates it) must release the connection promptly. Errors are raised
    as :mod:`forge_cli.errors` types, never as third-party exceptions.
    """

    name: str
    """A short label for messages and ``forge doctor`` ("responses", "chat", "local")."""

    runs_hosted_tools: bool
    """Whether the server runs hosted tools (file_search, web_search, ...) itself. When false
    (Chat Completions), ``build_agent`` offers the client-side knowledge tools instead."""

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Send ``request`` and yield its events as they arrive."""
        ...

    async def aclose(self) -> None:
        """Release connections and other resources."""
        ...
