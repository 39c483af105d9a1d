"""Build the next Request of a conversation from its settings and history.

Where the backend stores responses, a follow-up sends only the new message with
``previous_response_id``; otherwise the whole history is resent as input messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forge_cli.conversations.model import Conversation
from forge_cli.protocol.request import InputItem, InputMessage, Request
from forge_cli.protocol.tools import (
    CodeInterpreterTool,
    FileReaderTool,
    FileSearchTool,
    ListDocumentsTool,
    PageReaderTool,
    Tool,
    WebSearchTool,
)

__all__ = ["INTERRUPTED_MARK", "build_request", "result_includes", "tool_definitions"]

INTERRUPTED_MARK = "[interrupted]"
"""Appended to a partial answer when it is resent as history."""


def tool_definitions(names: list[str], vector_stores: list[str]) -> list[Tool]:
    """The hosted tool definitions for the CLI tool names, in the given order."""
    stores = list(vector_stores)
    factories: dict[str, Callable[[], Tool]] = {
        "file-search": lambda: FileSearchTool(vector_store_ids=stores),
        "web-search": WebSearchTool,
        "list-documents": lambda: ListDocumentsTool(vector_store_ids=stores),
        "file-reader": FileReaderTool,
        "page-reader": PageReaderTool,
        "code-interpreter": CodeInterpreterTool,
    }
    return [factories[name]() for name in names if name in factories]


def result_includes(tools: list[Tool]) -> list[str] | None:
    """The request's ``include``: file search results, which the Responses API (OpenAI's and
    ``forge serve``'s) returns on the call only when asked, for the tool tree and ``--json``."""
    if any(isinstance(tool, FileSearchTool) for tool in tools):
        return ["file_search_call.results"]
    return None


def _history(conversation: Conversation) -> list[InputItem]:
    items: list[InputItem] = []
    for turn in conversation.turns:
        text = turn.text
        if turn.status == "failed" and not text:
            continue  # a failed turn left no answer: do not resend an unanswered question
        items.append(InputMessage(role="user", content=turn.user))
        if turn.status == "interrupted":
            text = f"{text} {INTERRUPTED_MARK}".strip()
        if text:
            items.append(InputMessage(role="assistant", content=text))
    return items


def build_request(
    conversation: Conversation, text: str, *, stores_responses: bool, model: str
) -> Request:
    """The Request for the user's next message ``text``."""
    settings = conversation.settings
    previous = conversation.last_response_id if stores_responses else None
    if previous:
        items: list[InputItem] = [InputMessage(role="user", content=text)]
    else:
        items = [*_history(conversation), InputMessage(role="user", content=text)]
    sampling: dict[str, Any] = {}
    if settings.top_p is not None:
        sampling["top_p"] = settings.top_p  # a field both APIs take, kept as a wire extra
    tools = tool_definitions(settings.tools, settings.vector_stores)
    return Request(
        model=settings.model or model,
        input=items,
        instructions=settings.instructions,
        tools=tools,
        include=result_includes(tools),
        previous_response_id=previous,
        effort=settings.effort,
        temperature=settings.temperature,
        max_output_tokens=settings.max_output_tokens,
        stream=True,
        **sampling,
    )
