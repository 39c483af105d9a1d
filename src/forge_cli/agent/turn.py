"""Run one turn: a Request in, :data:`AnswerUpdate` values out, a :class:`TurnOutcome` at the end.

A :data:`Responder` is whatever answers a request: a backend's event stream folded into
snapshots (:func:`backend_responder`), or the agent loop when client-side tools run. It yields
snapshots (the last one is final) and loop events, and raises our typed errors.

:func:`run_turn` is the one place that turns "what happened" into a status, for ``forge ask``,
``forge chat`` and ``forge eval`` alike:

==========================================  ==============  =====================================
what happened                               status          error
==========================================  ==============  =====================================
the stream ended normally                   ``completed``   none
... but the final snapshot is incomplete    ``incomplete``  none (a blocked call, a length cut)
the tool iteration limit stopped the loop   ``incomplete``  :class:`ToolIterationLimitError`
a time or token budget stopped the loop     ``incomplete``  :class:`BudgetExceededError`
our output failed (``| head``, full disk)   ``interrupted`` :class:`OutputError`
any other :class:`ForgeError`               ``failed``      that error
the task was cancelled (Ctrl+C)             ``interrupted`` none; ``CancelledError`` propagates
==========================================  ==============  =====================================
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from forge_cli.errors import (
    BudgetExceededError,
    ForgeError,
    OutputError,
    ToolIterationLimitError,
)
from forge_cli.protocol.loop_events import AnswerUpdate, TurnStatus
from forge_cli.protocol.request import Request

if TYPE_CHECKING:
    from forge_cli.backends.base import Backend
    from forge_cli.protocol.events import StreamEvent
    from forge_cli.protocol.response import Response
    from forge_cli.startup import StartUp

__all__ = [
    "OutcomeSink",
    "Responder",
    "TurnOutcome",
    "TurnStatus",
    "UpdateSink",
    "backend_responder",
    "batches_responder",
    "response_type",
    "run_turn",
    "settle_cut_short",
]

Responder: TypeAlias = Callable[[Request], AsyncIterator[AnswerUpdate]]
"""Something that answers a request: snapshots (the last one is final) and loop events;
failures raise :class:`ForgeError`."""

UpdateSink: TypeAlias = Callable[[AnswerUpdate], None]
"""Receives each update as it arrives (a view draws it)."""


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """How a turn ended: its status, the last snapshot (``None`` if none came) and the error."""

    status: TurnStatus
    response: Response | None
    error: ForgeError | None = None

    @property
    def error_line(self) -> str | None:
        """The error as the CLI prints it (one line), or ``None``."""
        return self.error.one_line() if self.error is not None else None


OutcomeSink: TypeAlias = Callable[[TurnOutcome], None]
"""Receives the outcome once, also when the turn is interrupted (before the cancellation
propagates), so a partial answer is still finished on screen and saved."""


def response_type() -> type[Response]:
    """The Response model, imported on first use.

    ``forge ask`` sends its request before the response models are imported
    (benchmarks/bench_startup.py), so the runner looks the class up once an update is here.
    """
    from forge_cli.protocol.response import Response

    return Response


async def run_turn(
    responder: Responder,
    request: Request,
    *,
    on_update: UpdateSink | None = None,
    on_end: OutcomeSink | None = None,
) -> TurnOutcome:
    """Send ``request`` through ``responder``; hand each update on; return the outcome.

    Errors that are ours become the outcome (see the module table); any other exception is a
    bug and propagates. Cancellation calls ``on_end`` with the ``interrupted`` outcome and then
    propagates, so ``asyncio.run`` and task owners see it as usual.
    """
    last: Response | None = None
    response_cls: type[Response] | None = None
    try:
        async for update in responder(request):
            if response_cls is None:
                response_cls = response_type()
            if isinstance(update, response_cls):
                last = update
            if on_update is not None:
                on_update(update)
    except asyncio.CancelledError:
        if on_end is not None:
            on_end(TurnOutcome("interrupted", settle_cut_short(last)))
        raise
    except (ToolIterationLimitError, BudgetExceededError) as exc:
        outcome = TurnOutcome("incomplete", settle_cut_short(last), exc)
    except OutputError as exc:  # our output went away or failed: what arrived is kept
        outcome = TurnOutcome("interrupted", settle_cut_short(last), exc)
    except ForgeError as exc:
        outcome = TurnOutcome("failed", settle_cut_short(last), exc)
    else:
        done = last is None or last.status != "incomplete"
        outcome = TurnOutcome("completed" if done else "incomplete", last)
    if on_end is not None:
        on_end(outcome)
    return outcome


_SETTLED = frozenset({"blocked", "done", "error", "interrupted"})
"""Statuses besides ``TERMINAL_STATUSES`` that the views already draw as settled."""


def settle_cut_short(response: Response | None) -> Response | None:
    """``response`` with the items a cut-short turn left running marked ``incomplete``.

    A turn that ended before its items did (Ctrl+C at a tool's approval question or while a tool
    or the stream ran, a lost connection, a limit) would otherwise keep a call ``in progress``
    for good: on screen, in the saved conversation and in JSON. Items without a status (settled
    when done) are left as they are.
    """
    if response is None:
        return None
    from forge_cli.protocol.items import TERMINAL_STATUSES

    output = list(response.output)
    changed = False
    for index, item in enumerate(output):
        status = getattr(item, "status", None)
        if status is not None and status not in TERMINAL_STATUSES and status not in _SETTLED:
            output[index] = item.model_copy(update={"status": "incomplete"})
            changed = True
    return response.model_copy(update={"output": output}) if changed else response


def backend_responder(backend: Backend, *, start_up: StartUp | None = None) -> Responder:
    """A responder that folds ``backend``'s event stream; a server-reported failure raises.

    It is folded a batch (the events of one network read) at a time: one snapshot per batch
    instead of one per event (ADR 0015). With ``start_up``, its warm-up (what the fold needs,
    imported while the server works) is waited for once the first batch is here.
    """
    return batches_responder(backend.stream_batches, start_up=start_up)


def batches_responder(
    stream_batches: Callable[[Request], AsyncGenerator[list[StreamEvent], None]],
    *,
    start_up: StartUp | None = None,
) -> Responder:
    """:func:`backend_responder` for any source of event batches (``forge ask``'s first turn
    folds the reply of the request it sent early: ``EarlySending.stream_early``)."""

    async def respond(request: Request) -> AsyncIterator[AnswerUpdate]:
        async with aclosing(stream_batches(request)) as batches:
            first = await anext(batches, None)  # the request is out before anything is imported
            if start_up is not None:
                start_up.wait_for_imports()
            from forge_cli.stream import SnapshotBuilder, fold_batches, raise_for_failure

            builder = SnapshotBuilder()
            async for snapshot in fold_batches(_chain(first, batches), builder):
                yield snapshot
        raise_for_failure(builder)

    return respond


async def _chain(
    first: list[StreamEvent] | None, rest: AsyncIterator[list[StreamEvent]]
) -> AsyncIterator[Sequence[StreamEvent]]:
    """The first batch (read before the fold's modules were waited for), then the rest."""
    if first is None:
        return
    yield first
    async for batch in rest:
        yield batch
