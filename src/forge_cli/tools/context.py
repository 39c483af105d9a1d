"""What a tool may know about the run that called it.

A tool asks for it by declaring a parameter annotated :class:`RunContext` (a function tool) or a
``context: RunContext`` keyword on ``run`` (a class-based tool). The parameter is filled in by
the executor and is never part of the schema the model sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from forge_cli.protocol.request import InputItem

__all__ = ["RunContext"]


@dataclass(frozen=True, slots=True)
class RunContext:
    """The run as a tool sees it, at the moment of the call.

    ``history`` is the conversation so far as the model was sent it (the user's input, earlier
    answers, tool calls and results); ``iteration`` counts model requests in this run (1 for the
    first); ``policies`` maps each tool name to its approval policy (``auto``, ``ask`` or ``deny``)
    and ``assume_yes`` says whether ``ask`` is approved without asking.
    """

    history: tuple[InputItem, ...] = ()
    iteration: int = 0
    call_id: str = ""
    tool_name: str = ""
    policies: Mapping[str, str] = field(default_factory=dict)
    assume_yes: bool = False

    @property
    def question(self) -> str:
        """The last thing the user wrote, as text (empty if there is none)."""
        for item in reversed(self.history):
            role = getattr(item, "role", None)
            content = getattr(item, "content", None)
            if role != "user":
                continue
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(
                    str(part.get("text", "")) for part in content if isinstance(part, dict)
                )
        return ""
