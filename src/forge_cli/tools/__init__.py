"""Client-side tools: ``@tool``, class-based tools, the executor, hooks, approval, built-ins.

Lives below the agent layer so the local engine can run the same executor server-side.
"""

from __future__ import annotations

from forge_cli.tools.approval import (
    POLICIES,
    ApprovalHook,
    ApprovalPolicy,
    ApprovalRequest,
    Approver,
    Policy,
    TerminalApprover,
    parse_policy,
)
from forge_cli.tools.base import BaseTool, ToolOutput, render_output
from forge_cli.tools.builtin import KnowledgeToolkit
from forge_cli.tools.coerce import coerce_arguments
from forge_cli.tools.context import RunContext
from forge_cli.tools.decorator import CallableTool, tool
from forge_cli.tools.events import (
    ToolCallBlocked,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
    ToolEvent,
    ToolEventSink,
    ToolsDropped,
)
from forge_cli.tools.executor import DEFAULT_TOOL_TIMEOUT, ExecutionReport, ToolExecutor
from forge_cli.tools.hooks import AfterHook, BeforeHook, Block, ToolCall, ToolResult
from forge_cli.tools.loader import load_functions
from forge_cli.tools.schema import FunctionSchema, function_schema, parse_docstring
from forge_cli.tools.toolset import MAX_TOOLS_PER_REQUEST, ToolSet

__all__ = [
    "DEFAULT_TOOL_TIMEOUT",
    "MAX_TOOLS_PER_REQUEST",
    "POLICIES",
    "AfterHook",
    "ApprovalHook",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "BaseTool",
    "BeforeHook",
    "Block",
    "CallableTool",
    "ExecutionReport",
    "FunctionSchema",
    "KnowledgeToolkit",
    "Policy",
    "RunContext",
    "TerminalApprover",
    "ToolCall",
    "ToolCallBlocked",
    "ToolCallCompleted",
    "ToolCallFailed",
    "ToolCallStarted",
    "ToolEvent",
    "ToolEventSink",
    "ToolExecutor",
    "ToolOutput",
    "ToolResult",
    "ToolSet",
    "ToolsDropped",
    "coerce_arguments",
    "function_schema",
    "load_functions",
    "parse_docstring",
    "parse_policy",
    "render_output",
    "tool",
]
