"""The tool-calling driver: native function calling (tools in the request, calls in the reply)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from forge_cli.agent.drivers.base import TurnResult, TurnUpdate, stream_turn
from forge_cli.agent.drivers.tool_tags import extract_tool_call_tags
from forge_cli.agent.state import AgentState
from forge_cli.backends.base import Backend
from forge_cli.protocol.guards import is_function_call
from forge_cli.protocol.request import ToolChoice
from forge_cli.protocol.tools import FunctionTool

__all__ = ["ToolCallingDriver"]


class ToolCallingDriver:
    """Send the tools with the request; run whatever calls the model returns.

    ``tool_choice`` (``auto``, ``required``, ``none`` or ``{"type": "function", "name": ...}``)
    applies to the first turn only; later turns use ``auto``, or the model could never stop.
    ``parallel_tool_calls`` is passed through. ``parse_tool_call_tags`` (on by default) turns
    calls written as text (``<tool_call>``, the pythonic form, Llama's ``<|python_tag|>``,
    Mistral's ``[TOOL_CALLS]``, a bare JSON call; see :mod:`.tool_tags`) into calls when tools
    were offered and the reply has no native calls: servers without a tool parser leave them in
    the text. Only calls naming an offered function are taken.
    """

    def __init__(
        self,
        *,
        tool_choice: ToolChoice | None = None,
        parallel_tool_calls: bool | None = None,
        parse_tool_call_tags: bool = True,
        model: str | None = None,
    ) -> None:
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        self.parse_tool_call_tags = parse_tool_call_tags
        self.model = model

    def _overrides(self, state: AgentState) -> dict[str, Any]:
        update: dict[str, Any] = {}
        if self.model:
            update["model"] = self.model
        if state.all_tools():
            first = state.iteration <= 1
            choice = self.tool_choice if first else "auto"
            if self.tool_choice == "none":
                choice = "none"
            if choice is not None:
                update["tool_choice"] = choice
            if self.parallel_tool_calls is not None:
                update["parallel_tool_calls"] = self.parallel_tool_calls
        return update

    async def turn(self, backend: Backend, state: AgentState) -> AsyncIterator[TurnUpdate]:
        """One request with tools; the calls in the reply are the decision."""
        request = state.next_request(**self._overrides(state))
        offered = {tool.name for tool in request.tools if isinstance(tool, FunctionTool)}
        async for update in stream_turn(backend, request):
            if (
                isinstance(update, TurnResult)
                and self.parse_tool_call_tags
                and offered
                and not update.calls
                and request.tool_choice != "none"
            ):
                items = tuple(extract_tool_call_tags(list(update.items), offered))
                calls = tuple(item for item in items if is_function_call(item))
                update = TurnResult(items, calls, update.usage, update.status, update.response)
            yield update
