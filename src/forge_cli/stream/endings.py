"""How a stream that ended wrongly is worded, on every API.

The Responses path's :class:`~forge_cli.stream.builder.SnapshotBuilder` and the Chat Completions
backend (which reads its own chunks) say the same words for the same ending. Plain strings, so
the chat backend imports them without loading pydantic.
"""

from __future__ import annotations

__all__ = ["NO_TERMINAL_EVENT", "NO_VALID_EVENT"]

NO_VALID_EVENT = "the server's stream carried no valid event"
"""The stream ended and not one event (chunk) in it could be read."""

NO_TERMINAL_EVENT = "the stream ended before the answer finished (no terminal event)"
"""The connection closed cleanly before the answer's terminal event (``response.completed``,
a chat chunk with ``finish_reason`` or ``[DONE]``)."""
