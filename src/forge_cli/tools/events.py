"""Frozen events the tool executor reports, for renderers and logs (hooks change; events tell)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "FailureKind",
    "ToolCallBlocked",
    "ToolCallCompleted",
    "ToolCallFailed",
    "ToolCallStarted",
    "ToolEvent",
    "ToolEventSink",
    "ToolsDropped",
]

FailureKind = Literal["unknown_tool", "invalid_arguments", "exception", "timeout"]


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A call passed its hooks and approval and is about to run."""

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCallCompleted:
    """A call returned; ``output`` is the text the model will read."""

    call_id: str
    name: str
    output: str


@dataclass(frozen=True, slots=True)
class ToolCallFailed:
    """A call could not run or raised; ``error`` is what the model will read."""

    call_id: str
    name: str
    error: str
    kind: FailureKind


@dataclass(frozen=True, slots=True)
class ToolCallBlocked:
    """A hook or the approval policy stopped a call; ``by`` says which."""

    call_id: str
    name: str
    reason: str
    by: Literal["hook", "approval", "executor"] = "hook"


@dataclass(frozen=True, slots=True)
class ToolsDropped:
    """More tools than a request may carry: these were left out."""

    names: tuple[str, ...]
    limit: int


ToolEvent = ToolCallStarted | ToolCallCompleted | ToolCallFailed | ToolCallBlocked | ToolsDropped

ToolEventSink = Callable[[ToolEvent], None]
"""Receives events as they happen (must not block)."""
