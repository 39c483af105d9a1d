"""Tool calls a model wrote as text: the formats of servers that run no tool-call parser.

A model served without a tool parser (vLLM without ``--tool-call-parser``, llama.cpp without
``--jinja``, many fine-tunes) answers with its chat template's call syntax as plain text. These
forms are recognised (seed 001: every model family has its own):

- Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (the closing tag
  may be missing at the very end, where the server stopped on it);
- the pythonic form, inside ``<tool_call>`` or as a bracketed list:
  ``<tool_call>get_weather(city="NYC")</tool_call>``, ``[get_weather(city="NYC"), now()]``;
- Llama 3: ``<|python_tag|>{"name": ..., "parameters": {...}}`` (several separated by ``;``);
- Mistral: ``[TOOL_CALLS][{"name": ..., "arguments": {...}}]`` and the newer
  ``[TOOL_CALLS]get_weather[ARGS]{...}``;
- a bare JSON call (the whole reply, possibly in a ```json fence) naming an offered tool.

Only calls of ``offered`` tools are taken (when ``offered`` is given); a call naming anything else
stays in the text, as do malformed calls. The text around the calls is kept as the message.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from forge_cli import jsonsafe
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.guards import is_message
from forge_cli.protocol.items import FunctionCall, OutputItem

__all__ = ["TextCall", "extract_tool_call_tags", "find_text_calls"]


@dataclass(frozen=True, slots=True)
class TextCall:
    """A call found in text: the tool's name and its arguments as a JSON object string."""

    name: str
    arguments: str


_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_PYTHON_TAG = re.compile(r"<\|python_tag\|>(.*?)(?:<\|eom_id\|>|<\|eot_id\|>|\Z)", re.DOTALL)
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*(.*?)(?=\[TOOL_CALLS\]|</s>|\Z)", re.DOTALL)
_MISTRAL_ARGS = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*\[ARGS\]\s*(.*)$", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_PYTHONIC_LIST = re.compile(r"^\s*\[\s*[A-Za-z_][\w.]*\s*\(.*\)\s*\]\s*$", re.DOTALL)
_MAX_SOURCE = 200_000
"""Text longer than this is not parsed for calls (a bound on the work per reply)."""


def _json_calls(text: str) -> list[TextCall] | None:
    """Calls from a JSON object or a list of them; ``None`` when ``text`` is not such JSON."""
    try:
        data = jsonsafe.loads(text)
    except (ValueError, RecursionError):
        return None
    entries = data if isinstance(data, list) else [data]
    calls: list[TextCall] = []
    for entry in entries:
        if not isinstance(entry, dict):
            return None
        name = entry.get("name")
        function = entry.get("function")
        if name is None and isinstance(function, dict):  # {"type": "function", "function": {...}}
            name, entry = function.get("name"), function
        if not isinstance(name, str) or not name:
            return None
        arguments = entry.get("arguments", entry.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = jsonsafe.loads(arguments or "{}")
            except (ValueError, RecursionError):
                return None
        if not isinstance(arguments, dict):
            return None
        calls.append(TextCall(name, json.dumps(arguments, ensure_ascii=False)))
    return calls or None


def _pythonic_calls(text: str) -> list[TextCall] | None:
    """Calls from ``f(a=1)`` or ``[f(a=1), g()]`` with literal keyword arguments only."""
    source = text.strip()
    if len(source) > _MAX_SOURCE:
        return None
    try:
        tree = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    nodes = tree.elts if isinstance(tree, ast.List) else [tree]
    calls: list[TextCall] = []
    for node in nodes:
        if not isinstance(node, ast.Call) or node.args:
            return None
        name = ast.unparse(node.func)
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            return None
        arguments: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                return None
            try:
                arguments[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return None
        try:
            calls.append(TextCall(name, json.dumps(arguments, ensure_ascii=False)))
        except (TypeError, ValueError):  # a literal JSON cannot hold (a set, bytes, complex)
            return None
    return calls or None


def _body_calls(body: str) -> list[TextCall] | None:
    return _json_calls(body) or _pythonic_calls(body)


def _mistral_calls(body: str) -> list[TextCall] | None:
    match = _MISTRAL_ARGS.match(body)
    if match:
        return _json_calls(json.dumps({"name": match[1], "arguments": match[2].strip()}))
    return _json_calls(body.strip())


def _spans(text: str) -> Iterator[tuple[int, int, list[TextCall] | None]]:
    """Every tagged span in ``text`` with the calls it holds (``None``: malformed)."""
    for match in _HERMES.finditer(text):
        yield match.start(), match.end(), _body_calls(match[1])
    for match in _PYTHON_TAG.finditer(text):
        parts = [p for p in match[1].split(";") if p.strip()]
        found = [_json_calls(p.strip()) for p in parts]
        calls = [c for group in found if group for c in group]
        yield match.start(), match.end(), calls if found and all(found) else None
    for match in _MISTRAL.finditer(text):
        yield match.start(), match.end(), _mistral_calls(match[1])


def _whole_reply(text: str) -> list[TextCall] | None:
    """A reply that is nothing but a call: bare JSON (maybe fenced) or a pythonic list."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    body = fenced[1] if fenced else stripped
    if body.startswith(("{", "[")):
        calls = _json_calls(body)
        if calls:
            return calls
    if _PYTHONIC_LIST.match(body):
        return _pythonic_calls(body)
    return None


def find_text_calls(
    text: str, offered: Collection[str] | None = None
) -> tuple[list[TextCall], str]:
    """The calls written in ``text`` and the text left once they are taken out.

    With ``offered``, a span is taken only when every call in it names an offered tool; other
    spans (and malformed ones) stay in the text untouched.
    """
    if len(text) > _MAX_SOURCE:
        return [], text

    def allowed(calls: list[TextCall]) -> bool:
        return offered is None or all(call.name in offered for call in calls)

    taken: list[tuple[int, int, list[TextCall]]] = []
    for start, end, calls in sorted(_spans(text), key=lambda span: span[0]):
        if calls and allowed(calls) and all(end_ <= start for _, end_, _ in taken):
            taken.append((start, end, calls))
    if not taken:
        whole = _whole_reply(text)
        if whole and offered is not None and allowed(whole):
            return whole, ""
        return [], text
    rest, cursor = [], 0
    for start, end, _ in taken:
        rest.append(text[cursor:start])
        cursor = end
    rest.append(text[cursor:])
    return [call for _, _, calls in taken for call in calls], "".join(rest).strip()


def _function_call(call: TextCall) -> FunctionCall:
    return FunctionCall(
        id=f"fc_{uuid.uuid4().hex[:24]}",
        call_id=f"call_{uuid.uuid4().hex[:24]}",
        name=call.name,
        arguments=call.arguments,
        status="completed",
    )


def extract_tool_call_tags(
    items: list[OutputItem], offered: Collection[str] | None = None
) -> list[OutputItem]:
    """Items with calls written as text moved out of messages into :class:`FunctionCall` items."""
    out: list[OutputItem] = []
    for item in items:
        if not is_message(item) or not item.text:
            out.append(item)
            continue
        calls, rest = find_text_calls(item.text, offered)
        if not calls:
            out.append(item)
            continue
        if rest:
            out.append(item.model_copy(update={"content": [OutputText(text=rest)]}))
        out.extend(_function_call(call) for call in calls)
    return out
