"""Saved conversations: the session state of a chat, its storage, export and request building."""

from __future__ import annotations

from forge_cli.conversations.export import sources_of, to_json, to_markdown
from forge_cli.conversations.model import (
    FORMAT,
    Conversation,
    SessionSettings,
    Turn,
    TurnStatus,
    new_conversation_id,
    strip_credentials,
)
from forge_cli.conversations.requests import INTERRUPTED_MARK, build_request, tool_definitions
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
    "new_conversation_id",
    "sources_of",
    "strip_credentials",
    "to_json",
    "to_markdown",
    "tool_definitions",
]
