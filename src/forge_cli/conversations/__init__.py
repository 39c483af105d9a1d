"""Saved conversations: the session state of a chat, its storage, export and request building.

Exports resolve lazily, so ``forge ask`` loads only what it uses before its first request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.conversations.export import sources_of, to_json, to_markdown
    from forge_cli.conversations.model import (
        FORMAT,
        Conversation,
        SessionSettings,
        Turn,
        TurnStatus,
    )
    from forge_cli.conversations.plain import (
        first_request_wire,
        new_conversation_id,
        strip_credentials,
    )
    from forge_cli.conversations.requests import (
        INTERRUPTED_MARK,
        build_request,
        result_includes,
        tool_definitions,
    )
    from forge_cli.conversations.store import ConversationStore, Listing

__all__ = [
    "FORMAT",
    "INTERRUPTED_MARK",
    "Conversation",
    "ConversationStore",
    "Listing",
    "SessionSettings",
    "Turn",
    "TurnStatus",
    "build_request",
    "first_request_wire",
    "new_conversation_id",
    "result_includes",
    "sources_of",
    "strip_credentials",
    "to_json",
    "to_markdown",
    "tool_definitions",
]

_WHERE = {
    "FORMAT": "model",
    "Conversation": "model",
    "SessionSettings": "model",
    "Turn": "model",
    "TurnStatus": "model",
    "first_request_wire": "plain",
    "new_conversation_id": "plain",
    "strip_credentials": "plain",
    "ConversationStore": "store",
    "INTERRUPTED_MARK": "requests",
    "Listing": "store",
    "build_request": "requests",
    "sources_of": "export",
    "to_json": "export",
    "to_markdown": "export",
    "result_includes": "requests",
    "tool_definitions": "requests",
}

__getattr__ = lazy_exports(__name__, _WHERE)
