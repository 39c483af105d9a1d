"""Translate our Responses-shaped :class:`Request` into a Chat Completions request body.

- ``instructions`` → a leading system message; ``developer`` messages → system (local servers
  rarely know the developer role).
- Replayed ``message`` items → assistant messages; ``function_call`` items → ``tool_calls`` on
  the assistant message (merged with the message right before them, as the API expects);
  ``function_call_output`` items → ``tool`` messages. Reasoning and hosted-tool items are dropped:
  a Chat server cannot read them.
- ``FunctionTool`` (flat) → the nested ``{"type": "function", "function": {...}}`` shape. Hosted
  tools have no Chat equivalent: they are dropped and named in ``dropped_tools`` (the agent layer
  replaces them with client-side tools before the request gets here, when it can).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the models load with the first typed request (ADR-0020)
    from forge_cli.protocol.items import FunctionCall
    from forge_cli.protocol.request import Request

__all__ = ["ChatBody", "to_chat_body"]

_PASSTHROUGH_EXTRAS = ("top_p", "seed", "stop", "reasoning_effort", "frequency_penalty")


@dataclass
class ChatBody:
    """The keyword arguments for ``chat.completions.create`` and what had to be left out."""

    kwargs: dict[str, Any]
    dropped_tools: list[str] = field(default_factory=list)


def to_chat_body(request: Request) -> ChatBody:
    """The Chat Completions body for ``request`` (streaming, with usage)."""
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": _messages(request),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    tools, dropped = _tools(request)
    if tools:
        kwargs["tools"] = tools
        choice = _tool_choice(request.tool_choice)
        if choice is not None:
            kwargs["tool_choice"] = choice
        if request.parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = request.parallel_tool_calls
    elif request.tool_choice == "none":
        kwargs["tool_choice"] = "none"
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        kwargs["max_tokens"] = request.max_output_tokens
    extras = request.model_extra or {}
    for key in _PASSTHROUGH_EXTRAS:
        if extras.get(key) is not None:
            kwargs[key] = extras[key]
    response_format = _response_format(extras.get("text"))
    if response_format is not None:
        kwargs["response_format"] = response_format
    reasoning = extras.get("reasoning")
    if isinstance(reasoning, dict) and reasoning.get("effort") and "reasoning_effort" not in kwargs:
        kwargs["reasoning_effort"] = reasoning["effort"]
    if request.effort and "reasoning_effort" not in kwargs:
        kwargs["reasoning_effort"] = request.effort  # --effort: Chat's standard field
    return ChatBody(kwargs, dropped)


def _response_format(text: Any) -> dict[str, Any] | None:
    """The Responses API's ``text.format`` as Chat's ``response_format`` (``None``: plain text)."""
    fmt = text.get("format") if isinstance(text, dict) else None
    if not isinstance(fmt, dict) or fmt.get("type") in (None, "text"):
        return None
    if fmt["type"] == "json_schema":
        spec = {key: fmt[key] for key in ("name", "schema", "strict", "description") if key in fmt}
        return {"type": "json_schema", "json_schema": spec}
    return {"type": str(fmt["type"])}


def _messages(request: Request) -> list[dict[str, Any]]:
    from forge_cli.protocol.items import FunctionCall, FunctionCallOutput, Message
    from forge_cli.protocol.request import InputMessage

    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    if isinstance(request.input, str):
        if request.input:
            messages.append({"role": "user", "content": request.input})
        return messages
    for item in request.input:
        match item:
            case InputMessage(role=role, content=content):
                role = "system" if role == "developer" else role
                messages.append({"role": role, "content": _content(content)})
            case Message():
                messages.append({"role": "assistant", "content": item.text})
            case FunctionCall():
                _add_tool_call(messages, item)
            case FunctionCallOutput():
                messages.append(
                    {"role": "tool", "tool_call_id": item.call_id, "content": item.output_text}
                )
            case _:
                pass  # reasoning and hosted-tool items have no Chat Completions form
    return messages


def _add_tool_call(messages: list[dict[str, Any]], call: FunctionCall) -> None:
    entry = {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments or "{}"},
    }
    last = messages[-1] if messages else None
    if last is not None and last.get("role") == "assistant":
        last.setdefault("tool_calls", []).append(entry)
        if not last.get("content"):
            last["content"] = None
        return
    messages.append({"role": "assistant", "content": None, "tool_calls": [entry]})


def _content(content: str | list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Text parts are joined to a string (what every server accepts); images are kept as parts."""
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text"):
            parts.append({"type": "text", "text": str(part.get("text", ""))})
        elif kind == "input_image" and part.get("image_url"):
            parts.append({"type": "image_url", "image_url": {"url": part["image_url"]}})
    if all(part["type"] == "text" for part in parts):
        return "".join(part["text"] for part in parts)
    return parts


def _tools(request: Request) -> tuple[list[dict[str, Any]], list[str]]:
    from forge_cli.protocol.guards import is_function_tool

    tools: list[dict[str, Any]] = []
    dropped: list[str] = []
    for tool in request.tools:
        if is_function_tool(tool):
            function: dict[str, Any] = {"name": tool.name}
            if tool.description:
                function["description"] = tool.description
            function["parameters"] = tool.parameters or {"type": "object", "properties": {}}
            if tool.strict is not None:
                function["strict"] = tool.strict
            tools.append({"type": "function", "function": function})
        else:
            dropped.append(tool.type)
    return tools, dropped


def _tool_choice(choice: Any) -> Any:
    if choice is None or isinstance(choice, str):
        return choice
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        return {"type": "function", "function": {"name": name}} if name else None
    return None
