"""The typed request a backend sends. Unknown extra fields pass through to the server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, field_validator

from forge_cli.protocol._base import WireModel, empty_list

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from forge_cli.protocol.items import OutputItem
    from forge_cli.protocol.tools import Tool

__all__ = ["InputItem", "InputMessage", "Request", "ToolChoice", "parse_input_item", "parse_tool"]


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


if TYPE_CHECKING:
    InputItem = Annotated[
        Annotated[InputMessage, Tag("input_message")] | Annotated[OutputItem, Tag("item")],
        Discriminator(_input_tag),
    ]
    """An input item: a message, or any output item replayed (function_call, ...)."""
else:
    InputItem = Any  # validated item by item by ``parse_input_item``

ToolChoice = Literal["auto", "required", "none"] | dict[str, Any]

# At run time items are validated one by one by ``Request._items`` (below), so neither importing
# this module nor building the Request validator loads the whole output-item union: a plain
# question reaches the server sooner.
_InputItems = list[InputItem]


def parse_input_item(raw: Any) -> InputMessage | OutputItem:
    """An input item from JSON or a model: a message, else any output item (lenient)."""
    if isinstance(raw, InputMessage | WireModel):
        return raw  # type: ignore[return-value]  # an output item model passes through as is
    if _input_tag(raw) == "input_message":
        return InputMessage.model_validate(raw)
    from forge_cli.protocol.parse import parse_item  # the item models load on first use

    return parse_item(raw)


if TYPE_CHECKING:
    _Tools = list[Tool]
else:
    _Tools = list[Any]  # validated item by item by ``Request._tools`` (below)

_tool_adapter: TypeAdapter[Tool] | None = None


def parse_tool(raw: Any) -> Tool:
    """A tool definition from JSON or a model (an unknown ``type`` becomes ``UnknownTool``).

    The tool models and their union's validator are built on the first request that has tools:
    a plain question (``forge ask``) reaches the server without building them.
    """
    global _tool_adapter
    if isinstance(raw, WireModel):
        return raw  # type: ignore[return-value]  # a tool model passes through as is
    if _tool_adapter is None:
        from pydantic import TypeAdapter

        from forge_cli.protocol.tools import Tool

        _tool_adapter = TypeAdapter(Tool)
    return _tool_adapter.validate_python(raw)


class Request(WireModel):
    """A Responses request. Fields left ``None`` are not sent."""

    model: str
    input: str | _InputItems = ""
    instructions: str | None = None
    tools: _Tools = Field(default_factory=empty_list)
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

    @field_validator("input", mode="after")
    @classmethod
    def _items(cls, value: str | list[Any]) -> str | list[Any]:
        return value if isinstance(value, str) else [parse_input_item(item) for item in value]

    @field_validator("tools", mode="after")
    @classmethod
    def _tools(cls, value: list[Any]) -> list[Any]:
        return [parse_tool(tool) for tool in value]

    def to_wire(self) -> dict[str, Any]:
        """The JSON body, without ``None`` fields and without empty ``tools``."""
        body = super().to_wire()
        if not self.tools:
            body.pop("tools", None)
        return body
