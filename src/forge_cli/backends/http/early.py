"""A request written before its typed request exists (ADR-0020, amended by issue 28).

``forge ask`` writes a new conversation's first request as plain data, before pydantic and the
models are imported. Both HTTP backends (Responses and Chat Completions) keep that early send
here: :class:`EarlySending` starts it on the backend's own ``_send`` (so its retries, timeouts,
error mapping and redaction are the ordinary ones) and returns once its body is written. The
caller then streams its reply with :meth:`EarlySending.stream_early` -- the turn that asked for
it, by construction: nothing compares the body with another one. Any other send of the backend
(``stream_batches``) and ``aclose`` cancel an early send nobody took.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Coroutine, Iterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx2

    from forge_cli.protocol.events import StreamEvent

__all__ = ["EarlySend", "EarlySending", "signal_sent"]

Batches = AsyncGenerator[list["StreamEvent"], None]
SendEarly = Callable[["asyncio.Future[None]"], Coroutine[Any, Any, "httpx2.Response"]]
"""The backend's ordinary send of the early body, resolving the future once it is written."""


class EarlySend:
    """A request sent before its typed request existed: its body and the send in flight."""

    def __init__(self, body: dict[str, Any], task: asyncio.Task[httpx2.Response]) -> None:
        self.body = body
        self.task = task


class EarlySending:
    """The early send of one backend (at most one at a time), shared by both HTTP backends.

    A backend gives :meth:`_start_early` its ordinary send and implements :meth:`_early_batches`
    (the event batches of a reply, as its ``stream_batches`` reads them).
    """

    _early: EarlySend | None = None

    async def send_early(self, body: dict[str, Any]) -> None:
        """Start sending ``body`` (the plain first request, in this backend's dialect: see the
        backend's override); return once it is written (or the attempt is over)."""
        raise NotImplementedError

    async def stream_early(self) -> Batches:
        """The event batches of the reply to the request :meth:`send_early` wrote: taken over
        once, with the retries, timeouts, errors and limits of an ordinary send (an error of
        the send is raised here, as ``stream_batches`` would raise it)."""
        early, self._early = self._early, None
        if early is None:
            raise RuntimeError("stream_early without an early send")
        response = await early.task
        async with aclosing(self._early_batches(early.body, response)) as batches:
            async for batch in batches:
                yield batch

    def _early_batches(self, body: dict[str, Any], response: httpx2.Response) -> Batches:
        """The event batches of ``response``, the reply to the early ``body``."""
        raise NotImplementedError

    async def _start_early(self, body: dict[str, Any], send: SendEarly) -> None:
        """Start ``send`` of ``body`` (dropping an earlier early send); return once the body is
        written or the attempt is over (its outcome is raised by :meth:`stream_early`)."""
        await self._drop_early()
        sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(send(sent))
        self._early = EarlySend(body, task)
        await asyncio.wait((task, sent), return_when=asyncio.FIRST_COMPLETED)
        if not sent.done():
            sent.cancel()

    async def _drop_early(self) -> None:
        """Cancel an early send nobody took over, and close its reply."""
        if self._early is None:
            return
        early, self._early = self._early, None
        early.task.cancel()
        response = None
        with _own_cancellation_only():  # abandoned: its outcome is not anyone's
            response = await early.task
        if response is not None:
            await response.aclose()


@contextlib.contextmanager
def _own_cancellation_only() -> Iterator[None]:
    """Suppress the outcome of a task we cancelled and now await (its error, its cancellation),
    but not a cancellation of the task awaiting it: that one is the caller's and goes on."""
    try:
        yield
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
    except Exception:
        pass


def signal_sent(
    sent: asyncio.Future[None], on_sent: Callable[[], None] | None
) -> Callable[[str, dict[str, Any]], Any]:
    """An httpx2 trace that resolves ``sent`` once the request body is written (and, like the
    client's own trace, calls the backend's ``on_request_sent``)."""

    async def trace(name: str, info: dict[str, Any]) -> None:
        if name.endswith("send_request_body.complete"):
            if on_sent is not None:
                on_sent()
            if not sent.done():
                sent.set_result(None)

    return trace
