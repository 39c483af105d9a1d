"""The agent loop: drivers decide tool use, the executor runs tools, snapshots show it all.

Exports resolve lazily (module ``__getattr__``): ``forge ask`` imports the turn runner before it
sends its request, and must not pay for the loop, the drivers and the item models first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.agent.citations import annotate_citations
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
        AnswerUpdate,
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
    )
    from forge_cli.agent.factory import (
        Agent,
        AgentConfig,
        DriverKind,
        build_agent,
    )
    from forge_cli.agent.loop import (
        DEFAULT_MAX_ITERATIONS,
        AgentLoop,
    )
    from forge_cli.agent.state import (
        AgentState,
        replayable,
    )
    from forge_cli.agent.turn import (
        Responder,
        TurnOutcome,
        TurnStatus,
        backend_responder,
        run_turn,
    )

_WHERE = {
    "Agent": "factory",
    "AgentConfig": "factory",
    "AgentLoop": "loop",
    "AgentState": "state",
    "AnswerUpdate": "events",
    "DEFAULT_MAX_ITERATIONS": "loop",
    "Driver": "drivers",
    "DriverKind": "factory",
    "DriverRetry": "events",
    "EvaluatorDecision": "events",
    "EvaluatorDriver": "drivers",
    "IterationLimitReached": "events",
    "IterationStarted": "events",
    "LoopEvent": "events",
    "LoopFinished": "events",
    "LoopUpdate": "events",
    "Notice": "events",
    "ReActDecision": "drivers",
    "ReActDriver": "drivers",
    "Responder": "turn",
    "RunResult": "events",
    "RunStatus": "events",
    "ToolCallingDriver": "drivers",
    "TurnOutcome": "turn",
    "TurnResult": "drivers",
    "TurnStatus": "turn",
    "TurnUpdate": "drivers",
    "annotate_citations": "citations",
    "backend_responder": "turn",
    "build_agent": "factory",
    "extract_tool_call_tags": "drivers",
    "parse_decision": "drivers",
    "parse_verdict": "drivers",
    "replayable": "state",
    "run_turn": "turn",
    "stream_turn": "drivers",
}

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "Agent",
    "AgentConfig",
    "AgentLoop",
    "AgentState",
    "AnswerUpdate",
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
    "Responder",
    "RunResult",
    "RunStatus",
    "ToolCallingDriver",
    "TurnOutcome",
    "TurnResult",
    "TurnStatus",
    "TurnUpdate",
    "annotate_citations",
    "backend_responder",
    "build_agent",
    "extract_tool_call_tags",
    "parse_decision",
    "parse_verdict",
    "replayable",
    "run_turn",
    "stream_turn",
]

__getattr__ = lazy_exports(__name__, _WHERE)
