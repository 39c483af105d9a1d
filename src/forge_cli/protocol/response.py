"""The Response snapshot: what the assistant has produced so far."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from forge_cli.protocol._base import WireModel, empty_list
from forge_cli.protocol.annotations import Annotation
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.items import FunctionCall, Message, OutputItem
from forge_cli.protocol.tools import Tool

__all__ = ["RESPONSE_STATUSES", "Response", "ResponseError", "Usage"]

RESPONSE_STATUSES = frozenset(
    {"queued", "in_progress", "completed", "failed", "incomplete", "cancelled"}
)


class ResponseError(WireModel):
    """Why a response failed."""

    code: str | None = None
    message: str = ""


class Usage(WireModel):
    """Token counts."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: dict[str, Any] | None = None
    output_tokens_details: dict[str, Any] | None = None


class Response(WireModel):
    """A Response at one moment of the stream (or the final one)."""

    id: str = ""
    object: str = "response"
    created_at: float | None = None
    status: str | None = None
    error: ResponseError | None = None
    incomplete_details: dict[str, Any] | None = None
    instructions: str | None = None
    model: str | None = None
    output: list[OutputItem] = Field(default_factory=empty_list)
    parallel_tool_calls: bool | None = None
    tool_choice: Any = None
    tools: list[Tool] | None = None
    temperature: float | None = None
    previous_response_id: str | None = None
    usage: Usage | None = None
    metadata: dict[str, Any] | None = None

    @property
    def output_text(self) -> str:
        """The text of every message, joined (like the SDK's ``output_text``)."""
        return "".join(item.text for item in self.output if isinstance(item, Message))

    def annotations(self) -> list[Annotation]:
        """Every annotation of every output text, in output order."""
        found: list[Annotation] = []
        for item in self.output:
            if isinstance(item, Message):
                for part in item.content:
                    if isinstance(part, OutputText):
                        found.extend(part.annotations)
        return found

    def function_calls(self) -> list[FunctionCall]:
        """The function calls the client must run."""
        return [item for item in self.output if isinstance(item, FunctionCall)]
