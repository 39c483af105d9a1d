"""Drivers decide tool use for one model turn: native tool calling, ReAct, evaluator."""

from __future__ import annotations

from forge_cli.agent.drivers.base import Driver, TurnResult, TurnUpdate, stream_turn
from forge_cli.agent.drivers.evaluator import EvaluatorDriver, parse_verdict
from forge_cli.agent.drivers.react import ReActDecision, ReActDriver, parse_decision
from forge_cli.agent.drivers.tool_calling import ToolCallingDriver
from forge_cli.agent.drivers.tool_tags import extract_tool_call_tags

__all__ = [
    "Driver",
    "EvaluatorDriver",
    "ReActDecision",
    "ReActDriver",
    "ToolCallingDriver",
    "TurnResult",
    "TurnUpdate",
    "extract_tool_call_tags",
    "parse_decision",
    "parse_verdict",
    "stream_turn",
]
