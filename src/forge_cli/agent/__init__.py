"""The agent loop: drivers decide tool use, the executor runs tools, snapshots show it all."""

from __future__ import annotations

from forge_cli.agent.citations import annotate_citations, find_markers
from forge_cli.agent.drivers import (
    Driver,
    EvaluatorDriver,
    ReActDecision,
    ReActDriver,
    ToolCallingDriver,
    TurnResult,
    TurnUpdate,
    extract_tool_call_tags,
    parse_decision,
    parse_verdict,
    stream_turn,
)
from forge_cli.agent.events import (
    DriverRetry,
    EvaluatorDecision,
    IterationLimitReached,
    IterationStarted,
    LoopEvent,
    LoopFinished,
    LoopUpdate,
    Notice,
    RunResult,
    RunStatus,
    ToolPrinted,
)
from forge_cli.agent.factory import Agent, DriverKind, build_agent
from forge_cli.agent.loop import DEFAULT_MAX_ITERATIONS, AgentLoop
from forge_cli.agent.state import AgentState, replayable

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "Agent",
    "AgentLoop",
    "AgentState",
    "Driver",
    "DriverKind",
    "DriverRetry",
    "EvaluatorDecision",
    "EvaluatorDriver",
    "IterationLimitReached",
    "IterationStarted",
    "LoopEvent",
    "LoopFinished",
    "LoopUpdate",
    "Notice",
    "ReActDecision",
    "ReActDriver",
    "RunResult",
    "RunStatus",
    "ToolCallingDriver",
    "ToolPrinted",
    "TurnResult",
    "TurnUpdate",
    "annotate_citations",
    "build_agent",
    "extract_tool_call_tags",
    "find_markers",
    "parse_decision",
    "parse_verdict",
    "replayable",
    "stream_turn",
]
