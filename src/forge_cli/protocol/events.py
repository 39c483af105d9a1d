"""Stream events as they come off the wire, and the names of the standard event families.

Events stay plain (a ``type`` string and the raw JSON dict): dispatch is on the ``type`` string,
never on class identity, and a new event kind never fails to parse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EVENT_ALIASES",
    "LIFECYCLE_EVENTS",
    "TERMINAL_EVENTS",
    "StreamEvent",
]


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One event: its type (from the SSE ``event:`` line or ``data.type``) and its payload."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def sequence_number(self) -> int | None:
        """The server's sequence number, when it sent one."""
        value = self.data.get("sequence_number")
        return value if isinstance(value, int) else None


LIFECYCLE_EVENTS = frozenset(
    {
        "response.created",
        "response.queued",
        "response.in_progress",
        "response.completed",
        "response.failed",
        "response.incomplete",
    }
)
"""Events whose payload carries a full Response under ``response``."""

TERMINAL_EVENTS = frozenset(
    {"response.completed", "response.failed", "response.incomplete", "error", "done"}
)
"""Events after which a stream has said all it will say."""

EVENT_ALIASES: dict[str, str] = {
    # Older Knowledge Forge / forge-cli names for the current OpenAI names.
    "response.text.delta": "response.output_text.delta",
    "response.text.done": "response.output_text.done",
    "response.text.annotation.added": "response.output_text.annotation.added",
    "response.text.annotation.delta": "response.output_text.annotation.added",
    "response.function_call.arguments.delta": "response.function_call_arguments.delta",
    "response.function_call.arguments.done": "response.function_call_arguments.done",
    "response.reasoning_summary.part.added": "response.reasoning_summary_part.added",
    "response.reasoning_summary.part.done": "response.reasoning_summary_part.done",
    "response.reasoning_summary.text.delta": "response.reasoning_summary_text.delta",
    "response.reasoning_summary.text.done": "response.reasoning_summary_text.done",
    # vLLM's non-standard reasoning part events.
    "response.reasoning_part.added": "response.content_part.added",
    "response.reasoning_part.done": "response.content_part.done",
    "final_response": "response.completed",
}
"""Non-standard event names mapped onto the standard ones (protocol.md §8, §9)."""
