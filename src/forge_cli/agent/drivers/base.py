"""The driver seam: a driver decides tool use for one model turn.

A driver's :meth:`Driver.turn` sends the state (and tools) to the backend, yields snapshots of
*this turn's* items as they stream (plus any events of its own), and ends with one
:class:`TurnResult`: the turn's final items and the function calls to run. The loop does the rest
(executing, appending results, the iteration limit).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol

from forge_cli.agent.events import LoopEvent
from forge_cli.agent.state import AgentState
from forge_cli.backends.base import Backend
from forge_cli.protocol.items import FunctionCall, OutputItem
from forge_cli.protocol.request import Request
from forge_cli.protocol.response import Response, Usage
from forge_cli.stream import SnapshotBuilder, fold_batches, raise_for_failure

__all__ = ["Driver", "TurnResult", "TurnUpdate", "stream_turn"]


@dataclass(frozen=True)
class TurnResult:
    """The end of a turn: its items (final form) and the calls the loop must run."""

    items: tuple[OutputItem, ...]
    calls: tuple[FunctionCall, ...] = ()
    usage: Usage | None = None
    status: str = "completed"
    response: Response = field(default_factory=Response)


TurnUpdate = Response | LoopEvent | TurnResult


class Driver(Protocol):
    """Decides which tools to call: native function calling, ReAct, evaluator, scripted."""

    def turn(self, backend: Backend, state: AgentState) -> AsyncGenerator[TurnUpdate, None]:
        """Run one model turn; the last update is a :class:`TurnResult`."""
        ...


async def stream_turn(backend: Backend, request: Request) -> AsyncIterator[Response | TurnResult]:
    """Stream ``request`` and fold it; yield snapshots, then the :class:`TurnResult`.

    A stream that reports an error (``error`` or ``response.failed``) raises :class:`StreamError`
    after its last snapshot: a run failure goes up to the user.
    """
    builder = SnapshotBuilder()
    final = builder.snapshot
    # One snapshot per network read (ADR 0015).
    async for snapshot in fold_batches(backend.stream_batches(request), builder):
        final = snapshot
        yield snapshot
    raise_for_failure(builder)
    calls = tuple(item for item in final.output if isinstance(item, FunctionCall))
    yield TurnResult(
        tuple(final.output), calls, final.usage, final.status or "completed", response=final
    )
