"""The tool-calling driver: native function calling (tools in the request, calls in the reply).

For servers that refuse the ``tools`` field (llama.cpp without ``--jinja``, Ollama models
without tool support, vLLM without a tool parser answer HTTP 400), the driver can describe the
tools in the system prompt instead and read the calls the model writes as ``<tool_call>`` tags:
``tools_in_prompt=True`` always, ``None`` (the default) after such a 400, for the rest of the
run. In that mode earlier calls and results are replayed as plain messages (``<tool_call>`` and
``<tool_response>`` blocks), because those servers may reject ``tool`` messages too.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from forge_cli.agent.drivers.base import TurnResult, TurnUpdate, stream_turn
from forge_cli.agent.drivers.tool_tags import extract_tool_call_tags
from forge_cli.agent.events import Notice
from forge_cli.agent.state import AgentState
from forge_cli.backends.base import Backend
from forge_cli.errors import BackendHTTPError
from forge_cli.protocol.guards import is_function_call
from forge_cli.protocol.items import FunctionCall, FunctionCallOutput
from forge_cli.protocol.request import InputItem, InputMessage, Request, ToolChoice
from forge_cli.protocol.tools import FunctionTool
from forge_cli.sanitize import sanitize_inline

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
        tools_in_prompt: bool | None = None,
    ) -> None:
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        self.parse_tool_call_tags = parse_tool_call_tags
        self.model = model
        self.tools_in_prompt = tools_in_prompt
        """``True``: describe the tools in the prompt; ``False``: never; ``None``: only after
        the server refused the ``tools`` field (HTTP 400 naming tools)."""
        self._prompting = tools_in_prompt is True

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

    async def turn(self, backend: Backend, state: AgentState) -> AsyncGenerator[TurnUpdate, None]:
        """One request with tools; the calls in the reply are the decision."""
        request = state.next_request(**self._overrides(state))
        offered = {tool.name for tool in request.tools if isinstance(tool, FunctionTool)}
        if self._prompting and offered:
            request = _in_prompt(request)
        started = False
        try:
            async for update in self._calls(backend, request, offered):
                started = True
                yield update
        except BackendHTTPError as exc:
            if started or not _refuses_tools(exc) or self._prompting or not offered:
                raise
            if self.tools_in_prompt is False:
                raise
            self._prompting = True
            why = sanitize_inline(exc.one_line())[:200]
            yield Notice(
                f"the server does not accept tool definitions ({why}); "
                "describing the tools in the prompt instead",
                level="warning",
            )
            async for update in self._calls(backend, _in_prompt(request), offered):
                yield update

    async def _calls(
        self, backend: Backend, request: Request, offered: set[str]
    ) -> AsyncIterator[TurnUpdate]:
        parse = self.parse_tool_call_tags or self._prompting
        async for update in stream_turn(backend, request):
            if (
                isinstance(update, TurnResult)
                and parse
                and offered
                and not update.calls
                and request.tool_choice != "none"
            ):
                items = tuple(extract_tool_call_tags(list(update.items), offered))
                calls = tuple(item for item in items if is_function_call(item))
                update = TurnResult(items, calls, update.usage, update.status, update.response)
            yield update


PROMPT_TOOLS = """You can call tools. To call one, write exactly:
<tool_call>{{"name": "<tool name>", "arguments": {{...}}}}</tool_call>
and nothing after it; you will get the result in a <tool_response> block. Call a tool only when
you need it; otherwise answer directly.

Tools (JSON Schema of the arguments):
{tools}"""


def _refuses_tools(exc: BackendHTTPError) -> bool:
    """Whether an HTTP error says the server does not take tool definitions."""
    text = str(exc).lower()
    return exc.status_code in (400, 422) and "tool" in text


def _in_prompt(request: Request) -> Request:
    """``request`` with its function tools described in the instructions instead of ``tools``,
    and earlier calls and results replayed as plain messages."""
    functions = [tool for tool in request.tools if isinstance(tool, FunctionTool)]
    kept = [tool for tool in request.tools if not isinstance(tool, FunctionTool)]
    described = "\n".join(
        json.dumps(
            {"name": t.name, "description": t.description or "", "parameters": t.parameters or {}},
            ensure_ascii=False,
        )
        for t in functions
    )
    guide = PROMPT_TOOLS.format(tools=described)
    instructions = f"{request.instructions}\n\n{guide}" if request.instructions else guide
    items: list[InputItem] = (
        list(request.input)
        if isinstance(request.input, list)
        else [InputMessage(role="user", content=request.input)]
    )
    return request.model_copy(
        update={
            "tools": kept,
            "tool_choice": None,
            "parallel_tool_calls": None,
            "instructions": instructions,
            "input": _as_messages(items),
        }
    )


def _as_messages(items: list[InputItem]) -> list[InputItem]:
    """Function calls and their outputs as the plain messages a tool-less server accepts."""
    out: list[InputItem] = []
    for item in items:
        match item:
            case FunctionCall():
                body = {"name": item.name, "arguments": item.parsed_arguments() or {}}
                text = f"<tool_call>{json.dumps(body, ensure_ascii=False)}</tool_call>"
                out.append(InputMessage(role="assistant", content=text))
            case FunctionCallOutput():
                text = f"<tool_response>\n{item.output_text}\n</tool_response>"
                out.append(InputMessage(role="user", content=text))
            case _:
                out.append(item)
    return out
