"""What the agent loop yields: Response snapshots, loop events, and at the end its result.

``AgentLoop.run`` yields :data:`LoopUpdate` values: a :class:`Response` (the whole run so far,
ready to render like any server response), a loop event (the typed values of
:mod:`forge_cli.protocol.loop_events`, re-exported here), and last :class:`LoopFinished`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from forge_cli.errors import ToolIterationLimitError
from forge_cli.protocol.items import OutputItem
from forge_cli.protocol.loop_events import (
    AnswerUpdate,
    DriverRetry,
    EvaluatorDecision,
    IterationLimitReached,
    IterationStarted,
    LoopEvent,
    Notice,
)
from forge_cli.protocol.response import Response

__all__ = [
    "AnswerUpdate",
    "DriverRetry",
    "EvaluatorDecision",
    "IterationLimitReached",
    "IterationStarted",
    "LoopEvent",
    "LoopFinished",
    "LoopUpdate",
    "Notice",
    "RunResult",
    "RunStatus",
]

RunStatus = Literal["completed", "iteration_limit", "blocked", "incomplete"]


@dataclass(frozen=True)
class RunResult:
    """How a run ended: the final snapshot, the status and the items to keep as history."""

    status: RunStatus
    response: Response
    iterations: int
    new_items: tuple[OutputItem, ...] = ()

    def raise_for_status(self) -> None:
        """Raise :class:`ToolIterationLimitError` (exit code 3) when the limit stopped the run."""
        if self.status == "iteration_limit":
            raise ToolIterationLimitError(
                f"the agent stopped after {self.iterations} model requests without a final "
                "answer (tool iteration limit)",
                hint="raise the tool iteration limit, or ask a narrower question",
            )


@dataclass(frozen=True, slots=True)
class LoopFinished:
    """The run is over; always the last update."""

    result: RunResult


LoopUpdate: TypeAlias = "AnswerUpdate | LoopFinished"
"""One thing the loop yields: an :data:`AnswerUpdate` (a snapshot or an event), and at the end
:class:`LoopFinished`, which the turn runner consumes (renderers never see it)."""
