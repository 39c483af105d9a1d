"""Copy-on-write helpers: replace one content part; merge a server's final item with ours.

A server's final form of an item (``output_item.done``, ``response.completed``) is authoritative,
but some servers leave out what they streamed earlier (annotations, reasoning text, arguments).
:func:`merge_item` keeps what the final form omits, so nothing streamed is lost.
"""

from __future__ import annotations

from typing import Any, TypeVar

from forge_cli.protocol._base import evolve
from forge_cli.protocol.content import ContentPart, OutputText
from forge_cli.protocol.guards import is_message, is_reasoning
from forge_cli.protocol.items import Message, OutputItem, Reasoning

__all__ = ["merge_item", "set_part"]

_T = TypeVar("_T", bound=OutputItem)


def set_part(message: Message, index: int, part: ContentPart) -> Message:
    """A copy of ``message`` with ``content[index]`` replaced (padding with empty text parts)."""
    content = list(message.content)
    while len(content) < index:
        content.append(OutputText(text=""))
    if index < len(content):
        content[index] = part
    else:
        content.append(part)
    return evolve(message, content=content)


def merge_item(previous: OutputItem, new: OutputItem) -> OutputItem:
    """``new``, with fields it left unset carried over from ``previous`` of the same kind."""
    if previous.type != new.type or type(previous) is not type(new):
        return new
    carried: dict[str, Any] = {
        name: getattr(previous, name)
        for name in previous.model_fields_set - new.model_fields_set
        if getattr(previous, name, None) is not None
    }
    for name, value in (previous.model_extra or {}).items():
        if name not in (new.model_extra or {}):
            carried[name] = value
    for name in ("arguments", "code", "execution_trace"):
        if getattr(new, name, "x") in ("", None) and getattr(previous, name, None):
            carried[name] = getattr(previous, name)
    if getattr(new, "progress", 0.0) is None and getattr(previous, "progress", None) is not None:
        carried["progress"] = getattr(previous, "progress", None)
    merged = new.model_copy(update=carried) if carried else new
    if is_message(previous) and is_message(merged):
        return _merge_message(previous, merged)
    if is_reasoning(previous) and is_reasoning(merged):
        return _merge_reasoning(previous, merged)
    return merged


def _merge_message(previous: Message, new: Message) -> Message:
    content: list[ContentPart] = []
    for index, part in enumerate(new.content):
        old = previous.content[index] if index < len(previous.content) else None
        if isinstance(part, OutputText) and isinstance(old, OutputText):
            update: dict[str, Any] = {}
            if not part.annotations and old.annotations:
                update["annotations"] = old.annotations
            merged = part.model_copy(update=update) if update else part
            if not part.text and old.text:
                merged = merged.with_text(old.text)
            content.append(merged)
        else:
            content.append(part)
    content.extend(previous.content[len(new.content) :])
    if content == list(new.content):
        return new
    return new.model_copy(update={"content": content})


def _merge_reasoning(previous: Reasoning, new: Reasoning) -> Reasoning:
    update: dict[str, Any] = {}
    if not new.summary_text and previous.summary_text:
        update["summary"] = previous.summary
    new_raw = "".join(part.text for part in new.content or [])
    if not new_raw and previous.content:
        update["content"] = previous.content
    return new.model_copy(update=update) if update else new
