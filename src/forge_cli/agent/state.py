"""The state of one agent run: the original request, what the model has seen, what it produced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from forge_cli.protocol.guards import is_function_tool
from forge_cli.protocol.items import (
    FunctionCall,
    FunctionCallOutput,
    Message,
    OutputItem,
    Reasoning,
)
from forge_cli.protocol.request import InputItem, InputMessage, Request
from forge_cli.protocol.response import Usage
from forge_cli.protocol.tools import FunctionTool, Tool
from forge_cli.tools.hooks import ToolResult

__all__ = ["AgentState", "replayable"]


@dataclass
class AgentState:
    """Everything a driver needs to make the next request.

    ``items`` is every output item of the run so far (what the user sees, statuses included);
    :meth:`history` is what the model is sent back.
    """

    request: Request
    tools: list[FunctionTool] = field(default_factory=list)
    items: list[OutputItem] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    iteration: int = 0
    usage: Usage = field(default_factory=Usage)
    evaluated_rounds: int = 0
    rounds: int = 0

    @property
    def question(self) -> str:
        """The last user message of the original input (what the user asked)."""
        if isinstance(self.request.input, str):
            return self.request.input
        for item in reversed(self.request.input):
            match item:
                case InputMessage(role="user", content=str() as text):
                    return text
                case InputMessage(role="user", content=parts):
                    return " ".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
        return ""

    def original_input(self) -> list[InputItem]:
        """The request's input as a list of items."""
        if isinstance(self.request.input, str):
            return [InputMessage(role="user", content=self.request.input)]
        return list(self.request.input)

    def history(self) -> list[InputItem]:
        """The original input followed by the run's replayable items."""
        replay: list[InputItem] = [item for item in map(replayable, self.items) if item is not None]
        return [*self.original_input(), *replay]

    def all_tools(self) -> list[Tool]:
        """Hosted tools of the request plus the client-side function definitions."""
        names = {tool.name for tool in self.tools}
        kept: list[Tool] = [
            tool
            for tool in self.request.tools
            if not (is_function_tool(tool) and tool.name in names)
        ]
        return [*kept, *self.tools]

    def next_request(self, **update: Any) -> Request:
        """The request for the next model turn (history and tools filled in)."""
        fields: dict[str, Any] = {"input": self.history(), "tools": self.all_tools()}
        fields.update(update)
        return self.request.model_copy(update=fields)

    def add_usage(self, usage: Usage | None) -> None:
        """Add one turn's token counts to the run's."""
        if usage is None:
            return
        self.usage = Usage(
            input_tokens=self.usage.input_tokens + usage.input_tokens,
            output_tokens=self.usage.output_tokens + usage.output_tokens,
            total_tokens=self.usage.total_tokens + usage.total_tokens,
        )


def replayable(item: OutputItem) -> OutputItem | None:
    """The form of an output item the model is sent back, or ``None`` to leave it out.

    Function calls lose their display status; outputs keep only ``call_id`` and ``output``
    (servers reject unknown fields); reasoning is kept only when it is encrypted (stateless
    Responses reasoning); hosted-tool items are the server's own business and are dropped.
    """
    match item:
        case Message():
            return item
        case FunctionCall(call_id=call_id, name=name, arguments=arguments):
            return FunctionCall(call_id=call_id, name=name, arguments=arguments or "{}")
        case FunctionCallOutput(call_id=call_id, output=output):
            return FunctionCallOutput(call_id=call_id, output=output)
        case Reasoning() if item.encrypted_content:
            return item
        case _:
            return None
