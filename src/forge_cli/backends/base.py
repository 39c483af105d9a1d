"""The backend seam: something that turns a Request into a stream of events.

Every ability the CLI, the agent loop and the chat session use is declared here, so mypy checks
each backend against all of them and a new backend cannot silently miss one (no ``getattr``
probing anywhere): ``stream_batches`` (the fast path, ADR 0015), ``stores_responses`` and
``list_models`` (``None`` when the backend cannot list its models).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

if TYPE_CHECKING:  # annotations only: ``forge ask`` sends before the request model is built
    from forge_cli.protocol.events import StreamEvent
    from forge_cli.protocol.request import Request

__all__ = ["Backend", "ListModels", "RequestSent", "one_event_per_batch"]

ListModels: TypeAlias = Callable[[], Awaitable[list[str]]]
"""Lists the ids of the models a server offers, in its order."""

RequestSent: TypeAlias = Callable[[], None]
"""Called by an HTTP backend each time a request's last byte is written (the CLI's warm-up
starts then: :meth:`forge_cli.startup.StartUp.request_sent`)."""


@runtime_checkable
class Backend(Protocol):
    """A backend streams the events of one response.

    ``stream`` and ``stream_batches`` are async generators: iterate one to receive events;
    closing it (``aclose``, or cancelling the task that iterates it) must release the connection
    promptly. Errors are raised as :mod:`forge_cli.errors` types, never as third-party
    exceptions.
    """

    name: str
    """A short label for messages and ``forge doctor`` ("responses", "chat", "local")."""

    runs_hosted_tools: bool
    """Whether the server runs hosted tools (file_search, web_search, ...) itself. When false
    (Chat Completions), ``build_agent`` offers the client-side knowledge tools instead."""

    @property
    def stores_responses(self) -> bool:
        """Whether a follow-up may send only ``previous_response_id`` (else the history is
        resent)."""
        ...

    @property
    def list_models(self) -> ListModels | None:
        """Lists the server's models (``forge models``, ``forge doctor``, ``/model``), or
        ``None`` when this backend cannot."""
        ...

    def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """Send ``request`` and yield its events as they arrive."""
        ...

    def stream_batches(self, request: Request) -> AsyncGenerator[list[StreamEvent], None]:
        """Like :meth:`stream`, the events one network read carried as one list: the turn
        runner folds a batch into one snapshot (``stream.fold_batches``, ADR 0015). A backend
        without reads of its own returns :func:`one_event_per_batch` of its ``stream``."""
        ...

    async def aclose(self) -> None:
        """Release connections and other resources."""
        ...


async def one_event_per_batch(
    events: AsyncGenerator[StreamEvent, None],
) -> AsyncGenerator[list[StreamEvent], None]:
    """``events`` as batches of one: folded exactly as event by event (``stream_batches`` of a
    backend that has no network reads of its own, such as the scripted and local ones)."""
    async with aclosing(events) as each:
        async for event in each:
            yield [event]
