"""What the agent loop yields: Response snapshots, and frozen events for renderers and logs.

``AgentLoop.run`` yields :data:`LoopUpdate` values: either a :class:`Response` (the whole run so
far, ready to render like any server response) or one of the events below (or a tool event from
:mod:`forge_cli.tools.events`). The last update of every run is :class:`LoopFinished`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from forge_cli.errors import ToolIterationLimitError
from forge_cli.protocol.items import OutputItem
from forge_cli.protocol.response import Response
from forge_cli.tools.events import ToolEvent

__all__ = [
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
    "ToolPrinted",
]

RunStatus = Literal["completed", "iteration_limit", "blocked", "incomplete"]


@dataclass(frozen=True, slots=True)
class IterationStarted:
    """The loop is about to ask the model (1-based ``iteration``)."""

    iteration: int
    limit: int


@dataclass(frozen=True, slots=True)
class IterationLimitReached:
    """The model still wanted tools after ``limit`` requests; these calls were not run."""

    limit: int
    pending_calls: tuple[str, ...]

    @property
    def message(self) -> str:
        """A one-line notice for the user."""
        names = ", ".join(self.pending_calls) or "none"
        return (
            f"stopped after {self.limit} model requests (the tool iteration limit); "
            f"calls not run: {names}"
        )


@dataclass(frozen=True, slots=True)
class DriverRetry:
    """A driver asked the model again because its reply was malformed (ReAct)."""

    attempt: int
    error: str


@dataclass(frozen=True, slots=True)
class EvaluatorDecision:
    """The evaluator's verdict after a round of tool calls."""

    decision: Literal["FINISHED", "CONTINUE"]
    reason: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should know that is not an error (dropped tools, a fallback)."""

    message: str
    level: Literal["info", "warning"] = "warning"


@dataclass(frozen=True, slots=True)
class ToolPrinted:
    """A tool wrote to stdout/stderr while it ran; the text was captured (never sent to the
    model, never mixed into ``--json``) and is shown to the user as a notice."""

    name: str
    message: str
    type: str = "tool.printed"


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


LoopEvent = (
    ToolEvent
    | IterationStarted
    | IterationLimitReached
    | DriverRetry
    | EvaluatorDecision
    | Notice
    | ToolPrinted
    | LoopFinished
)

LoopUpdate = Response | LoopEvent
"""One thing the loop yields: a snapshot to render, or an event."""
