"""An MCP server's tool as a Forge tool: ``server__tool``, its schema, its approval policy.

The argument schema is the server's own JSON Schema (sent to the model as is); arguments are
passed through unchanged and the server validates them. A result flagged ``isError`` and a failed
call become error results the model reads (the executor turns the raised error into one); a
timeout or Ctrl+C cancels the call, and the SDK tells the server (``notifications/cancelled``).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from forge_cli.mcp.client import McpConnection, McpToolInfo
from forge_cli.mcp.live import LiveCalls
from forge_cli.tools.base import BaseTool, ToolOutput
from forge_cli.tools.context import RunContext

__all__ = ["McpTool", "McpToolError", "tool_name"]

SEPARATOR = "__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_MAX_DESCRIPTION = 1024


class McpToolError(Exception):
    """The server answered the call with an error result."""


class _Arguments(BaseModel):
    """Any JSON object: the MCP server checks its own arguments."""

    model_config = ConfigDict(extra="allow")


def tool_name(server: str, tool: str) -> str:
    """``server__tool``, made of the characters function-calling APIs accept, at most 64."""
    name = f"{_UNSAFE.sub('_', server)}{SEPARATOR}{_UNSAFE.sub('_', tool)}"
    if len(name) <= 64:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[:55]}_{digest}"


class McpTool(BaseTool):
    """One tool of one MCP server."""

    args_schema = _Arguments

    def __init__(self, connection: McpConnection, info: McpToolInfo, live: LiveCalls) -> None:
        self.name = tool_name(connection.name, info.name)
        description = info.description or f"The {info.name} tool."
        self.description = f"[MCP server {connection.name}] {description}"[:_MAX_DESCRIPTION]
        self.timeout = connection.spec.timeout
        self.connection = connection
        self.info = info
        self.live = live
        super().__init__()

    @property
    def server(self) -> str:
        """The server's name."""
        return self.connection.name

    def parameters(self) -> dict[str, Any]:
        """The server's input schema (an object schema, whatever the server sent)."""
        schema = dict(self.info.input_schema)
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        schema.pop("$schema", None)
        return schema

    async def run(self, args: Any, context: RunContext | None = None) -> Any:
        """Call the tool on its server, reporting progress against the current call."""
        arguments = args.model_dump() if isinstance(args, BaseModel) else dict(args)
        call_id = context.call_id if context is not None and context.call_id else None
        if call_id is not None:
            self.live.start(call_id, self.server, self.info.name)

        def progress(value: float, total: float | None, message: str | None) -> None:
            if call_id is not None:
                self.live.progress(call_id, value, total, message)

        try:
            outcome = await self.connection.call(self.info.name, arguments, report=progress)
        finally:
            if call_id is not None:
                self.live.finish(call_id)
        if outcome.is_error:
            # The SDK's servers prefix this; the call is already named where it is shown.
            text = outcome.text.removeprefix(f"Error executing tool {self.info.name}: ")
            raise McpToolError(text or "the tool reported an error")
        return ToolOutput(outcome.text)
