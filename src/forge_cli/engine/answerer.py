"""The answerer seam: something that turns a prepared request into output-item events.

The engine owns the lifecycle (``response.created`` ... ``response.completed``); an answerer emits
everything in between -- hosted tool calls and the assistant message -- through the shared
:class:`~forge_cli.engine.emitter.ResponseEmitter`. Two implementations: the retrieval answerer
(no model) and the upstream answerer (an OpenAI-compatible chat model).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from forge_cli.engine.hosted import ToolContext
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request

__all__ = ["AnswerContext", "Answerer"]


@dataclass
class AnswerContext:
    """Everything an answerer needs for one response."""

    request: Request
    query: str
    tools: ToolContext
    history: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    transcript: list[dict[str, Any]] = field(default_factory=list)
    """Chat messages of this turn (user and assistant), kept for ``previous_response_id``."""


class Answerer(Protocol):
    """Produces the output items of a response."""

    @property
    def model(self) -> str:
        """The model name the response reports."""
        ...

    def answer(self, ctx: AnswerContext) -> AsyncIterator[StreamEvent]:
        """Yield the events of the output items (tool calls, then the message)."""
        ...
