"""A saved conversation: its settings (the one source of truth of a chat) and its turns.

The REPL, the toolbar and the request builder all read :attr:`Conversation.settings`; nothing
keeps a copy of it (the older CLI's two sources of truth for tool state, §6.1 #5, drifted).
No secret is ever stored here: API keys live only in the config file.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from forge_cli.conversations.plain import new_conversation_id, strip_credentials
from forge_cli.protocol._defaults import empty_list
from forge_cli.protocol.loop_events import TurnStatus

if TYPE_CHECKING:
    from forge_cli.protocol.response import Response

__all__ = [
    "FORMAT",
    "Conversation",
    "SessionSettings",
    "Turn",
    "TurnStatus",
    "new_conversation_id",
    "strip_credentials",
]

FORMAT: Literal["forge.conversation/v1"] = "forge.conversation/v1"


class SessionSettings(BaseModel):
    """What the next request asks for. Mutated in place by slash commands."""

    model_config = ConfigDict(validate_assignment=True, extra="ignore", defer_build=True)

    model: str | None = None
    effort: str | None = None
    tools: list[str] = Field(default_factory=empty_list)
    vector_stores: list[str] = Field(default_factory=empty_list)
    instructions: str | None = None
    reasoning: bool = True
    max_iterations: int = 5
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None


class Turn(BaseModel):
    """One exchange: the user's message and what the assistant produced (maybe partial)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    user: str
    output: list[dict[str, Any]] = Field(default_factory=empty_list)
    response_id: str | None = None
    status: TurnStatus = "completed"
    error: str | None = None
    usage: dict[str, Any] | None = None
    model: str | None = None
    created_at: float = Field(default_factory=time.time)

    @classmethod
    def from_response(
        cls, user: str, response: Response | None, *, status: TurnStatus, error: str | None = None
    ) -> Turn:
        """A turn holding ``response``'s output (serialised to wire JSON)."""
        if response is None:
            return cls(user=user, status=status, error=error)
        wire = response.to_wire()
        return cls(
            user=user,
            output=list(wire.get("output", [])),
            response_id=response.id or None,
            status=status,
            error=error,
            usage=wire.get("usage"),
            model=response.model,
        )

    def response(self) -> Response:
        """The stored output as a typed Response (lenient: odd items become Unknown)."""
        from forge_cli.protocol.parse import parse_response

        return parse_response({"id": self.response_id or "", "output": self.output})

    @property
    def text(self) -> str:
        """The assistant's answer text."""
        return self.response().output_text

    @property
    def total_tokens(self) -> int:
        """Tokens this turn used, when the server reported them."""
        value = (self.usage or {}).get("total_tokens", 0)
        return value if isinstance(value, int) else 0


class Conversation(BaseModel):
    """A chat: id, optional name, settings and turns."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True, defer_build=True)

    format: Literal["forge.conversation/v1"] = FORMAT
    id: str = Field(default_factory=new_conversation_id)
    name: str | None = None
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    api: str | None = None
    base_url: str | None = None
    settings: SessionSettings = Field(default_factory=SessionSettings)
    turns: list[Turn] = Field(default_factory=empty_list)

    @property
    def tokens_used(self) -> int:
        """Tokens used by every turn."""
        return sum(turn.total_tokens for turn in self.turns)

    @property
    def last_response_id(self) -> str | None:
        """The id to continue from with ``previous_response_id`` (the last completed turn)."""
        if self.turns and self.turns[-1].status == "completed":
            return self.turns[-1].response_id
        return None

    @property
    def title(self) -> str:
        """The name, else the first user message cut short."""
        if self.name:
            return self.name
        first = self.turns[0].user if self.turns else "(empty)"
        first = " ".join(first.split())
        return first if len(first) <= 60 else first[:59] + "…"

    def add_turn(self, turn: Turn) -> None:
        """Append ``turn`` and touch ``updated_at``."""
        self.turns.append(turn)
        self.updated_at = time.time()

    def fresh_copy(self) -> Conversation:
        """A new, empty conversation with the same settings and backend (``/new``)."""
        return Conversation(
            api=self.api,
            base_url=self.base_url,
            settings=self.settings.model_copy(deep=True),
        )
