"""Chat Completions on the wire of ``forge serve``: a chat request in, chat chunks out.

``/v1/chat/completions`` is the Responses engine seen through the other OpenAI API. A chat body
becomes a :class:`~forge_cli.protocol.request.Request` (messages → input items and instructions,
function tools, ``response_format`` → ``text.format``, ``max_tokens`` / ``max_completion_tokens``,
``reasoning_effort``); the engine's Responses events become ``chat.completion.chunk`` objects
(content, reasoning as ``reasoning_content``, function calls as ``tool_calls``, citations as
``annotations``, a finish reason, usage when ``stream_options.include_usage`` asks for it), or one
``chat.completion`` object when the client did not ask for a stream.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from forge_cli.engine import safe_json
from forge_cli.errors import UsageError
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request

__all__ = ["ChatTranslator", "chat_to_request", "response_format_to_text"]

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _text_of(content: Any, where: str) -> str:
    """The text of a message's content: a string, or text parts (other parts are refused)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") not in ("text", "input_text"):
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise UsageError(f"invalid request: {where}: unsupported content part {kind!r}")
            texts.append(str(part.get("text", "")))
        return "".join(texts)
    raise UsageError(f"invalid request: {where}: content must be a string or a list of parts")


def _message_items(messages: Any) -> tuple[list[str], list[dict[str, Any]]]:
    if not isinstance(messages, list) or not messages:
        raise UsageError("invalid request: messages: a non-empty list of messages is required")
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for n, message in enumerate(messages):
        where = f"messages.{n}"
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            raise UsageError(f"invalid request: {where}: a message needs a known 'role'")
        role = message["role"]
        text = _text_of(message.get("content"), where)
        if role in ("system", "developer"):
            instructions.append(text)
        elif role in ("tool", "function"):
            call_id = message.get("tool_call_id") or message.get("name") or ""
            items.append({"type": "function_call_output", "call_id": call_id, "output": text})
        elif role == "assistant":
            if text:
                items.append({"role": "assistant", "content": text})
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list):
                raise UsageError(f"invalid request: {where}.tool_calls: a list expected")
            for call in calls:
                if not isinstance(call, dict):
                    raise UsageError(f"invalid request: {where}.tool_calls: objects expected")
                function = _object(call.get("function"), f"{where}.tool_calls.function")
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.get("id", ""),
                        "name": function.get("name", ""),
                        "arguments": function.get("arguments") or "{}",
                        "status": "completed",
                    }
                )
        else:
            items.append({"role": "user", "content": text})
    return instructions, items


def _object(value: Any, where: str) -> dict[str, Any]:
    """``value`` when it is an object (``None``: an empty one), else a UsageError naming it."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"invalid request: {where} must be an object")
    return value


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is not None and not isinstance(tools, list):
        raise UsageError("invalid request: tools must be a list")
    out: list[dict[str, Any]] = []
    for n, tool in enumerate(tools or []):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise UsageError(f"invalid request: tools.{n}: only function tools are supported")
        function = _object(tool.get("function"), f"tools.{n}.function")
        if not function.get("name") or not isinstance(function["name"], str):
            raise UsageError(f"invalid request: tools.{n}.function.name is required")
        entry: dict[str, Any] = {
            "type": "function",
            "name": function["name"],
            "parameters": function.get("parameters") or {"type": "object", "properties": {}},
        }
        if function.get("description"):
            entry["description"] = function["description"]
        if function.get("strict") is not None:
            entry["strict"] = function["strict"]
        out.append(entry)
    return out


def _tool_choice(choice: Any) -> Any:
    if isinstance(choice, dict) and choice.get("type") == "function":
        function = _object(choice.get("function"), "tool_choice.function")
        return {"type": "function", "name": function.get("name", "")}
    return choice


def response_format_to_text(response_format: Any) -> dict[str, Any] | None:
    """Chat's ``response_format`` as the Responses API's ``text`` field (``None``: plain text)."""
    if response_format is None:
        return None
    if not isinstance(response_format, dict):
        raise UsageError("invalid request: response_format must be an object")
    kind = response_format.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        return {"format": {"type": "json_object"}}
    if kind == "json_schema":
        spec = response_format.get("json_schema") or {}
        if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
            raise UsageError("invalid request: response_format.json_schema.schema is required")
        fmt: dict[str, Any] = {
            "type": "json_schema",
            "name": spec.get("name") or "response",
            "schema": spec["schema"],
        }
        if spec.get("strict") is not None:
            fmt["strict"] = spec["strict"]
        return {"format": fmt}
    raise UsageError(f"invalid request: response_format.type {kind!r} is not supported")


def chat_to_request(body: dict[str, Any]) -> Request:
    """The Responses request a Chat Completions body asks for (``UsageError`` when malformed)."""
    instructions, items = _message_items(body.get("messages"))
    functions = _tools(body.get("tools"))
    wire: dict[str, Any] = {
        "model": body.get("model") or "",
        "input": items,
        # Chat has no hosted tools: the engine searches its default stores next to the client's
        # own functions, as /v1/responses does for a request that enables no tools.
        "tools": [{"type": "file_search"}, *functions] if functions else [],
        "stream": bool(body.get("stream")),
    }
    if instructions:
        wire["instructions"] = "\n\n".join(instructions)
    for source, target in (
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("parallel_tool_calls", "parallel_tool_calls"),
        ("metadata", "metadata"),
    ):
        if body.get(source) is not None:
            wire[target] = body[source]
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    if limit is not None:
        wire["max_output_tokens"] = limit
    if body.get("tool_choice") is not None:
        wire["tool_choice"] = _tool_choice(body["tool_choice"])
    if body.get("reasoning_effort"):
        wire["reasoning"] = {"effort": body["reasoning_effort"]}
    text = response_format_to_text(body.get("response_format"))
    if text is not None:
        wire["text"] = text
    try:
        return Request.model_validate(wire)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise UsageError(f"invalid request: {where}: {first.get('msg')}") from exc


def _chat_annotation(annotation: dict[str, Any]) -> dict[str, Any]:
    """A url_citation in Chat's nested shape; other kinds as the Responses API writes them."""
    if annotation.get("type") != "url_citation":
        return annotation
    keys = ("url", "title", "start_index", "end_index")
    return {"type": "url_citation", "url_citation": {k: annotation.get(k) for k in keys}}


FILE_CITATIONS = "file_citations"
"""The message (and delta) key of ``forge serve``'s file citations over Chat Completions."""

_FINISH = {"completed": "stop", "incomplete": "length", "failed": "stop"}


@dataclass
class ChatTranslator:
    """Turns one response's Responses events into Chat Completions chunks (or one completion)."""

    model: str
    include_usage: bool = False
    completion_id: str = field(default_factory=lambda: f"chatcmpl-{time.time_ns():x}")
    created: int = field(default_factory=lambda: int(time.time()))
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    annotations: list[dict[str, Any]] = field(default_factory=list)
    """``url_citation`` annotations: the only kind the Chat Completions API (and its SDK) has."""
    file_citations: list[dict[str, Any]] = field(default_factory=list)
    """Every other kind (``file_citation``), in the Responses shape, under a key of its own so
    the message still validates against the SDK's ``ChatCompletion`` (docs/serve.md)."""
    usage: dict[str, int] | None = None
    finish_reason: str | None = None
    error: dict[str, Any] | None = None
    _started: bool = False

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    def feed(self, event: StreamEvent) -> list[dict[str, Any]]:
        """The chunks one engine event becomes (often none)."""
        out: list[dict[str, Any]] = []
        if not self._started:
            self._started = True
            out.append(self._chunk({"role": "assistant", "content": ""}))
        data = event.data
        kind = event.type
        if kind == "response.output_text.delta":
            self.text.append(data.get("delta", ""))
            out.append(self._chunk({"content": data.get("delta", "")}))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self.reasoning.append(data.get("delta", ""))
            out.append(self._chunk({"reasoning_content": data.get("delta", "")}))
        elif kind == "response.output_text.annotation.added":
            annotation = _chat_annotation(data.get("annotation") or {})
            if annotation.get("type") == "url_citation":
                self.annotations.append(annotation)
                out.append(self._chunk({"annotations": [annotation]}))
            else:
                self.file_citations.append(annotation)
                out.append(self._chunk({FILE_CITATIONS: [annotation]}))
        elif kind == "response.output_item.done" and data["item"].get("type") == "function_call":
            item = data["item"]
            call = {
                "index": len(self.tool_calls),
                "id": item.get("call_id") or item.get("id", ""),
                "type": "function",
                "function": {"name": item.get("name", ""), "arguments": item.get("arguments", "")},
            }
            self.tool_calls.append(call)
            out.append(self._chunk({"tool_calls": [call]}))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            out.extend(self._finish(data.get("response") or {}))
        return out

    def _finish(self, response: dict[str, Any]) -> list[dict[str, Any]]:
        status = response.get("status") or "completed"
        self.error = response.get("error") if status == "failed" else None
        self.finish_reason = "tool_calls" if self.tool_calls else _FINISH.get(status, "stop")
        usage = response.get("usage") or {}
        prompt, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
        self.usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": usage.get("total_tokens", prompt + completion),
        }
        if self.error is not None:
            return []
        chunks = [self._chunk({}, self.finish_reason)]
        if self.include_usage:
            chunks.append({**self._chunk({}), "choices": [], "usage": self.usage})
        return chunks

    def completion(self) -> dict[str, Any]:
        """The whole answer as one ``chat.completion`` object."""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(self.text) if self.text or not self.tool_calls else None,
            "refusal": None,
        }
        if self.tool_calls:
            message["tool_calls"] = [
                {key: value for key, value in call.items() if key != "index"}
                for call in self.tool_calls
            ]
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        if self.annotations:
            message["annotations"] = self.annotations
        if self.file_citations:
            message[FILE_CITATIONS] = self.file_citations
        return {
            "id": self.completion_id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": self.finish_reason or "stop",
                }
            ],
            "usage": self.usage or {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }


def sse_chunk(chunk: dict[str, Any]) -> bytes:
    """One ``data:`` frame."""
    return f"data: {safe_json.dumps(chunk)}\n\n".encode()
