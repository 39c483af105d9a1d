"""The typed request a backend sends. Unknown extra fields pass through to the server."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from forge_cli.protocol._base import WireModel
from forge_cli.protocol.items import OutputItem
from forge_cli.protocol.tools import Tool

__all__ = ["InputItem", "InputMessage", "Request", "ToolChoice"]


class InputMessage(WireModel):
    """A message in the input: ``{role, content}`` with text or content parts."""

    type: Literal["message"] | None = None
    role: Literal["user", "assistant", "system", "developer"] = "user"
    content: str | list[dict[str, Any]] = ""


def _input_tag(value: Any) -> str:
    if isinstance(value, dict):
        is_message = "role" in value and value.get("type") in (None, "message")
        return "input_message" if is_message else "item"
    return "input_message" if isinstance(value, InputMessage) else "item"


InputItem = Annotated[
    Annotated[InputMessage, Tag("input_message")] | Annotated[OutputItem, Tag("item")],
    Discriminator(_input_tag),
]
"""An input item: a message, or any output item replayed (function_call, function_call_output)."""

ToolChoice = Literal["auto", "required", "none"] | dict[str, Any]


class Request(WireModel):
    """A Responses request. Fields left ``None`` are not sent."""

    model: str
    input: str | list[InputItem] = ""
    instructions: str | None = None
    tools: list[Tool] = Field(default_factory=list)
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    previous_response_id: str | None = None
    store: bool | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None
    effort: str | None = None
    include: list[str] | None = None
    metadata: dict[str, str] | None = None
    stream: bool | None = None

    def to_wire(self) -> dict[str, Any]:
        """The JSON body, without ``None`` fields and without empty ``tools``."""
        body = super().to_wire()
        if not self.tools:
            body.pop("tools", None)
        return body
