"""Reading a Request's input: the user's question (the last user message's text)."""

from __future__ import annotations

from typing import Any

from forge_cli.protocol.request import InputMessage, Request

__all__ = ["content_text", "last_user_text"]


def content_text(content: str | list[dict[str, Any]] | list[Any]) -> str:
    """The text of a message's content (string or ``input_text``/``output_text`` parts)."""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif hasattr(part, "text") and isinstance(part.text, str):
            texts.append(part.text)
    return "\n".join(texts)


def last_user_text(request: Request) -> str:
    """The text of the last user message (the question to answer)."""
    if isinstance(request.input, str):
        return request.input
    for item in reversed(request.input):
        if isinstance(item, InputMessage) and item.role == "user":
            return content_text(item.content)
    return ""
