"""What the agent loop yields: Response snapshots, loop events, and at the end its result.

``AgentLoop.run`` yields :data:`LoopUpdate` values: a :class:`Response` (the whole run so far,
ready to render like any server response), a loop event (the typed values of
:mod:`forge_cli.protocol.loop_events`, re-exported here), and last :class:`LoopFinished`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from forge_cli.errors import TimeBudgetError, TokenBudgetError, ToolIterationLimitError
from forge_cli.protocol.items import OutputItem
from forge_cli.protocol.loop_events import (
    AnswerUpdate,
    BudgetExhausted,
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
    "BudgetExhausted",
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

RunStatus = Literal[
    "completed", "iteration_limit", "time_limit", "token_limit", "blocked", "incomplete"
]


@dataclass(frozen=True)
class RunResult:
    """How a run ended: the final snapshot, the status and the items to keep as history."""

    status: RunStatus
    response: Response
    iterations: int
    new_items: tuple[OutputItem, ...] = ()
    requests: int = 0
    """Model requests the run made (the evaluator driver makes more than one per round)."""

    def raise_for_status(self) -> None:
        """Raise when a limit stopped the run: :class:`ToolIterationLimitError` (exit code 3),
        :class:`TimeBudgetError` (4) or :class:`TokenBudgetError` (5)."""
        made = self.requests or self.iterations
        if self.status == "iteration_limit":
            raise ToolIterationLimitError(
                f"the agent stopped after {made} model requests without a final "
                "answer (tool iteration limit)",
                hint="raise the tool iteration limit, or ask a narrower question",
            )
        if self.status == "time_limit":
            raise TimeBudgetError(
                f"the time budget ran out after {made} model requests; the answer is incomplete",
                hint="raise --max-time",
            )
        if self.status == "token_limit":
            raise TokenBudgetError(
                f"the token budget was used up after {made} model requests; "
                "the answer is incomplete",
                hint="raise --token-budget",
            )


@dataclass(frozen=True, slots=True)
class LoopFinished:
    """The run is over; always the last update."""

    result: RunResult


LoopUpdate: TypeAlias = "AnswerUpdate | LoopFinished"
"""One thing the loop yields: an :data:`AnswerUpdate` (a snapshot or an event), and at the end
:class:`LoopFinished`, which the turn runner consumes (renderers never see it)."""
