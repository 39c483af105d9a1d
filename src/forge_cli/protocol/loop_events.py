"""Agent-loop events: frozen values with a literal ``type``, and the one answer-stream union.

What a turn produces is one typed stream of :data:`AnswerUpdate` values: a :class:`Response`
snapshot (everything shown so far) or a :data:`LoopEvent` (news a snapshot does not carry: a
blocked call, the iteration limit, a driver retry...). The tool executor emits the
``tool_call.*`` and ``tools.dropped`` events; the agent loop and its drivers the rest.

Every event is a frozen dataclass whose ``type`` is fixed by its class. Consumers dispatch with
``match`` and ``typing.assert_never``, so adding an event here makes mypy point at every
renderer that does not handle it yet. ``--jsonl`` writes each one as ``agent.<type>`` with the
event's other fields as the payload (:func:`event_payload`; docs/json-output.md lists them).

No I/O here; this module imports nothing of ours but the response model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from forge_cli.protocol.response import Response

__all__ = [
    "AnswerUpdate",
    "BudgetExhausted",
    "DriverRetry",
    "EvaluatorDecision",
    "FailureKind",
    "IterationLimitReached",
    "IterationStarted",
    "LoopEvent",
    "Notice",
    "ToolCallBlocked",
    "ToolCallCompleted",
    "ToolCallFailed",
    "ToolCallStarted",
    "ToolEvent",
    "ToolsDropped",
    "TurnStatus",
    "event_payload",
]

FailureKind = Literal["unknown_tool", "invalid_arguments", "exception", "timeout"]


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A call passed its hooks and approval and is about to run."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    type: Literal["tool_call.started"] = field(default="tool_call.started", init=False)


@dataclass(frozen=True, slots=True)
class ToolCallCompleted:
    """A call returned; ``output`` is the text the model will read."""

    call_id: str
    name: str
    output: str
    type: Literal["tool_call.completed"] = field(default="tool_call.completed", init=False)


@dataclass(frozen=True, slots=True)
class ToolCallFailed:
    """A call could not run or raised; ``error`` is what the model will read."""

    call_id: str
    name: str
    error: str
    kind: FailureKind
    type: Literal["tool_call.failed"] = field(default="tool_call.failed", init=False)


@dataclass(frozen=True, slots=True)
class ToolCallBlocked:
    """A hook, the approval policy or the executor stopped a call; ``by`` says which."""

    call_id: str
    name: str
    reason: str
    by: Literal["hook", "approval", "executor"] = "hook"
    type: Literal["tool_call.blocked"] = field(default="tool_call.blocked", init=False)


@dataclass(frozen=True, slots=True)
class ToolsDropped:
    """More tools than a request may carry: these were left out."""

    names: tuple[str, ...]
    limit: int
    type: Literal["tools.dropped"] = field(default="tools.dropped", init=False)


@dataclass(frozen=True, slots=True)
class IterationStarted:
    """The loop is about to ask the model (1-based ``iteration``)."""

    iteration: int
    limit: int
    type: Literal["iteration.started"] = field(default="iteration.started", init=False)


@dataclass(frozen=True, slots=True)
class IterationLimitReached:
    """The model still wanted tools after ``limit`` requests; these calls were not run."""

    limit: int
    pending_calls: tuple[str, ...]
    requests: int = 0
    """Model requests the run made (more than ``limit`` with the evaluator driver)."""
    type: Literal["iteration.limit_reached"] = field(default="iteration.limit_reached", init=False)

    @property
    def message(self) -> str:
        """A one-line notice for the user."""
        names = ", ".join(self.pending_calls) or "none"
        made = self.requests or self.limit
        rounds = "" if made == self.limit else f" in {self.limit} rounds"
        return (
            f"stopped after {made} model requests{rounds} (the tool iteration limit); "
            f"calls not run: {names}"
        )


@dataclass(frozen=True, slots=True)
class BudgetExhausted:
    """The run's time or token budget ran out; the answer so far is kept."""

    budget: Literal["time", "tokens"]
    limit: float
    used: float
    type: Literal["budget.exhausted"] = field(default="budget.exhausted", init=False)

    @property
    def message(self) -> str:
        """A one-line notice for the user."""
        if self.budget == "time":
            return f"stopped: the time budget of {self.limit:g} s ran out ({self.used:.1f} s used)"
        return f"stopped: the token budget of {self.limit:g} was used up ({self.used:g} tokens)"


@dataclass(frozen=True, slots=True)
class DriverRetry:
    """A driver asked the model again because its reply was malformed (ReAct)."""

    attempt: int
    error: str
    type: Literal["driver.retry"] = field(default="driver.retry", init=False)


@dataclass(frozen=True, slots=True)
class EvaluatorDecision:
    """The evaluator's verdict after a round of tool calls."""

    decision: Literal["FINISHED", "CONTINUE"]
    reason: str
    type: Literal["evaluator.decision"] = field(default="evaluator.decision", init=False)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should know that is not an error (dropped tools, a fallback)."""

    message: str
    level: Literal["info", "warning"] = "warning"
    type: Literal["notice"] = field(default="notice", init=False)


ToolEvent: TypeAlias = (
    ToolCallStarted | ToolCallCompleted | ToolCallFailed | ToolCallBlocked | ToolsDropped
)
"""What the tool executor reports."""

LoopEvent: TypeAlias = (
    ToolEvent
    | IterationStarted
    | IterationLimitReached
    | BudgetExhausted
    | DriverRetry
    | EvaluatorDecision
    | Notice
)
"""Every event of the agent loop, its drivers and its executor."""

AnswerUpdate: TypeAlias = "Response | LoopEvent"
"""One thing a turn yields: a snapshot to render, or a loop event. Defined here, once."""

TurnStatus = Literal["completed", "incomplete", "failed", "interrupted"]
"""How a turn ended (the turn runner's outcome, a saved turn's status, the JSON ``status``)."""


def event_payload(event: LoopEvent) -> dict[str, Any]:
    """The event's fields but ``type``, as JSON-ready values (tuples become lists)."""
    data = dataclasses.asdict(event)
    data.pop("type")
    return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}
