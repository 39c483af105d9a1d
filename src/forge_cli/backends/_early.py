"""A request written before its typed request exists, taken over by the ordinary send (ADR-0020).

``forge ask`` writes a new conversation's first request as plain data, then imports pydantic and
builds the typed request. Both HTTP backends (Responses and Chat Completions) keep that early send
here: :class:`EarlySending` starts it on the backend's own ``_send`` (so its retries, timeouts,
error mapping and redaction are the ordinary ones), reads its reply while the models are imported
(the first-paint preview, ADR-0018), hands it to the next ``stream_batches`` whose body is the
same JSON, and cancels it otherwise (a different body, or ``aclose``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, Callable, Coroutine, Iterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from forge_cli._lazy import request_sent

if TYPE_CHECKING:
    import httpx2

    from forge_cli.protocol.events import StreamEvent

__all__ = ["EarlySend", "EarlySending", "continue_early", "same_json", "signal_sent"]

Batches = AsyncGenerator[list["StreamEvent"], None]
SendEarly = Callable[["asyncio.Future[None]"], Coroutine[Any, Any, "httpx2.Response"]]
"""The backend's ordinary send of the early body, resolving the future once it is written."""


class EarlySend:
    """A request sent before its typed request existed, and what an early reader read of its
    reply (``EarlySending._read_early_while``)."""

    def __init__(self, body: dict[str, Any], task: asyncio.Task[httpx2.Response]) -> None:
        self.body = body
        self.task = task
        self.reader: asyncio.Future[None] | None = None
        self.response: httpx2.Response | None = None
        self.batches: Batches | None = None
        self.read: list[list[StreamEvent]] = []
        self.failure: Exception | None = None
        self.ended = False


class EarlySending:
    """The early send of one backend (at most one at a time), shared by both HTTP backends."""

    _early: EarlySend | None = None

    async def _start_early(self, body: dict[str, Any], send: SendEarly) -> None:
        """Start ``send`` of ``body`` (dropping an earlier early send); return once the body is
        written or the attempt is over (its outcome is raised by whoever takes it over)."""
        await self._drop_early()
        sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(send(sent))
        self._early = EarlySend(body, task)
        await asyncio.wait((task, sent), return_when=asyncio.FIRST_COMPLETED)
        if not sent.done():
            sent.cancel()

    def _read_early_while(
        self, busy: asyncio.Future[Any], batches_of: Callable[[httpx2.Response], Batches]
    ) -> None:
        """Read the early send's reply (``batches_of`` it) while ``busy`` is not done, offering
        each batch to the first-paint preview. Returns at once (a task reads)."""
        early = self._early
        if early is None or early.reader is not None:
            return
        early.reader = asyncio.ensure_future(_read_early(early, busy, batches_of))

    async def _stream_sent(
        self,
        body: dict[str, Any],
        send: Callable[[], Coroutine[Any, Any, httpx2.Response]],
        batches_of: Callable[[httpx2.Response], Batches],
        tie: Callable[[httpx2.Response], Callable[[], None]] | None = None,
    ) -> Batches:
        """The batches of ``body``'s reply: the early send's when it sent the same body (what
        its reader read first, then the rest), else those of ``send()``'s reply."""
        early = await self._take_early(body)
        if early is not None and early.batches is not None:
            async with aclosing(continue_early(early, tie)) as batches:
                async for batch in batches:
                    yield batch
            return
        # The early send of the same body is not sent twice: its reply is this one.
        response = await early.task if early is not None else await send()
        async with aclosing(batches_of(response)) as batches:
            async for batch in batches:
                yield batch

    async def _take_early(self, body: dict[str, Any]) -> EarlySend | None:
        """The early send of ``body`` (handed over once, its reader stopped), else ``None``
        (an early send of another body is dropped)."""
        if self._early is not None and same_json(self._early.body, body):
            early, self._early = self._early, None
            if early.reader is not None:
                await early.reader  # it stops after the read in flight; it raises nothing
            return early
        await self._drop_early()
        return None

    async def _drop_early(self) -> None:
        """Cancel an early send nobody took over (and its reader), and close its reply."""
        if self._early is None:
            return
        early, self._early = self._early, None
        if early.reader is not None:
            early.reader.cancel()
            with _own_cancellation_only():
                await early.reader
        if early.batches is not None:
            with contextlib.suppress(Exception):
                await early.batches.aclose()  # closes the reply
            return
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


async def _read_early(
    early: EarlySend, busy: asyncio.Future[Any], batches_of: Callable[[httpx2.Response], Batches]
) -> None:
    """Read ``early``'s batches into it while ``busy`` runs and the preview shows them all.

    Never raises: a failed send is raised by whoever awaits ``early.task``, a failed read by the
    stream that takes the send over.
    """
    from forge_cli._lazy import first_paint

    await asyncio.wait((early.task, busy), return_when=asyncio.FIRST_COMPLETED)
    if busy.done() or early.task.cancelled() or early.task.exception() is not None:
        return
    early.response = early.task.result()
    early.batches = batches_of(early.response)
    while not busy.done():
        try:
            batch = await anext(early.batches)
        except StopAsyncIteration:
            early.ended = True
            return
        except Exception as exc:  # raised after the batches read before it
            early.failure, early.ended = exc, True
            return
        early.read.append(batch)
        if not first_paint(batch):
            return


async def continue_early(
    early: EarlySend, tie: Callable[[httpx2.Response], Callable[[], None]] | None = None
) -> Batches:
    """The batches an early reader read, its error if it met one, then the rest of the stream.
    ``tie``: ties the reply to the task iterating this (returns the function that unties it)."""
    response, batches = early.response, early.batches
    assert response is not None
    assert batches is not None
    release = tie(response) if tie is not None else (lambda: None)
    try:
        async with aclosing(batches):
            for batch in early.read:
                yield batch
            if early.failure is not None:
                raise early.failure
            if not early.ended:
                async for batch in batches:
                    yield batch
    finally:
        release()
        await response.aclose()


def same_json(sent: dict[str, Any], body: dict[str, Any]) -> bool:
    """Whether ``body`` serialises to the JSON already sent (key order and ``1`` vs ``1.0``
    included, which ``==`` alone would not see)."""
    return sent == body and json.dumps(sent) == json.dumps(body)


def signal_sent(sent: asyncio.Future[None]) -> Callable[[str, dict[str, Any]], Any]:
    """An httpx2 trace that resolves ``sent`` once the request body is written (and, like the
    client's own trace, tells :func:`forge_cli._lazy.request_sent`)."""

    async def trace(name: str, info: dict[str, Any]) -> None:
        if name.endswith("send_request_body.complete"):
            request_sent()
            if not sent.done():
                sent.set_result(None)

    return trace
