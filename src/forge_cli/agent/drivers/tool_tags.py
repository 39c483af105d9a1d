"""Parse ``<tool_call>{...}</tool_call>`` tags out of message text.

For servers that do not parse a model's tool-call format themselves (the model writes the tags
as plain text). Opt-in per model: every model has its own format (seed 001), so this is never
applied silently.
"""

from __future__ import annotations

import json
import re
import uuid

from forge_cli.protocol.content import OutputText
from forge_cli.protocol.items import FunctionCall, Message, OutputItem

__all__ = ["extract_tool_call_tags"]

_TAG = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def extract_tool_call_tags(items: list[OutputItem]) -> list[OutputItem]:
    """Items with tagged calls moved out of messages into :class:`FunctionCall` items."""
    out: list[OutputItem] = []
    for item in items:
        if not isinstance(item, Message) or "<tool_call>" not in item.text:
            out.append(item)
            continue
        calls = [call for call in map(_call, _TAG.findall(item.text)) if call is not None]
        if not calls:
            out.append(item)
            continue
        rest = _TAG.sub("", item.text).strip()
        if rest:
            out.append(item.model_copy(update={"content": [OutputText(text=rest)]}))
        out.extend(calls)
    return out


def _call(body: str) -> FunctionCall | None:
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    arguments = data.get("arguments", data.get("parameters", {}))
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return FunctionCall(
        id=f"fc_{uuid.uuid4().hex[:24]}",
        call_id=f"call_{uuid.uuid4().hex[:24]}",
        name=data["name"],
        arguments=text,
        status="completed",
    )
