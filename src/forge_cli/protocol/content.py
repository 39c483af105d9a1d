"""Content parts of messages and reasoning items, with lazily joined streamed text."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import Discriminator, Field, PrivateAttr, Tag, field_serializer

from forge_cli.protocol._base import BUILT_ON_USE, WireModel, empty_list, evolve, type_tag
from forge_cli.protocol.annotations import Annotation
from forge_cli.protocol.text import TextView

__all__ = [
    "CONTENT_PART_TYPES",
    "ContentPart",
    "OutputText",
    "ReasoningText",
    "Refusal",
    "SummaryText",
    "UnknownPart",
]


class _StreamedText(WireModel):
    """A part whose ``text`` may be a lazy :class:`TextView` while it streams."""

    text_value: str = Field(default="", alias="text")
    _view: TextView | None = PrivateAttr(default=None)

    @property
    def text(self) -> str:
        """The text of this part (joined on first read while streaming)."""
        view = self.text_view
        return view.text if view is not None else self.text_value

    @property
    def text_view(self) -> TextView | None:
        """The lazy view the text reads from while it streams (``None`` once it is concrete).

        Readers that follow a growing text use its ``length`` and ``text_from`` to read only
        what is new. (Read from the private dict directly: pydantic's ``__getattr__`` for
        private attributes is slow, and this runs once per streamed delta.)
        """
        private = self.__pydantic_private__
        return private.get("_view") if private else None

    @field_serializer("text_value")
    def _serialize_text(self, _value: str) -> str:
        return self.text

    def with_view(self, view: TextView) -> Self:
        """A copy whose text reads from ``view`` (used by the SnapshotBuilder)."""
        copy = evolve(self)
        private = copy.__pydantic_private__  # evolve copied it: setting it here is safe
        if private is None:
            copy._view = view
        else:
            private["_view"] = view
        return copy

    def with_text(self, text: str) -> Self:
        """A copy with concrete text."""
        copy = self.model_copy(update={"text_value": text})
        copy._view = None
        return copy


class OutputText(_StreamedText):
    """Answer text with its annotations (citations)."""

    type: Literal["output_text"] = "output_text"
    annotations: list[Annotation] = Field(default_factory=empty_list)
    logprobs: list[dict[str, Any]] | None = None


class Refusal(WireModel):
    """The model declined to answer."""

    type: Literal["refusal"] = "refusal"
    refusal: str = ""


class SummaryText(_StreamedText):
    """One part of a reasoning summary."""

    type: Literal["summary_text"] = "summary_text"


class ReasoningText(_StreamedText):
    """Raw reasoning text (servers that expose it)."""

    type: Literal["reasoning_text"] = "reasoning_text"


class UnknownPart(WireModel):
    """A content part kind we do not know; kept as extras."""

    is_unknown_kind: ClassVar[bool] = True

    type: str = "unknown"


CONTENT_PART_TYPES = frozenset({"output_text", "refusal", "reasoning_text", "summary_text"})

ContentPart = Annotated[
    Annotated[OutputText, BUILT_ON_USE, Tag("output_text")]
    | Annotated[Refusal, BUILT_ON_USE, Tag("refusal")]
    | Annotated[ReasoningText, BUILT_ON_USE, Tag("reasoning_text")]
    | Annotated[SummaryText, BUILT_ON_USE, Tag("summary_text")]
    | Annotated[UnknownPart, BUILT_ON_USE, Tag("__unknown__")],
    Discriminator(type_tag(CONTENT_PART_TYPES, "__unknown__")),
]
"""Any message content part; an unknown ``type`` becomes :class:`UnknownPart`."""
