"""Tool *definitions*: what a request enables; discriminated by ``type``, with a fallback."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Discriminator, Field, Tag

from forge_cli.protocol._base import BUILT_ON_USE, WireModel, empty_list, type_tag

__all__ = [
    "TOOL_TYPES",
    "CodeInterpreterTool",
    "ComputerUsePreviewTool",
    "FileReaderTool",
    "FileSearchTool",
    "FunctionTool",
    "ListDocumentsTool",
    "PageReaderTool",
    "RankingOptions",
    "Tool",
    "UnknownTool",
    "UserLocation",
    "WebSearchPreviewTool",
    "WebSearchTool",
]


class RankingOptions(WireModel):
    """How file search ranks passages."""

    ranker: str | None = None
    score_threshold: float | None = None
    hybrid_search: dict[str, float] | None = None


class FileSearchTool(WireModel):
    """Search the given vector stores. ``filters`` is an OpenAI comparison or compound filter."""

    type: Literal["file_search"] = "file_search"
    vector_store_ids: list[str] = Field(default_factory=empty_list)
    max_num_results: int | None = None
    ranking_options: RankingOptions | None = None
    filters: dict[str, Any] | None = None


class UserLocation(WireModel):
    """An approximate location to tune web search."""

    type: Literal["approximate"] = "approximate"
    city: str | None = None
    country: str | None = None
    region: str | None = None
    timezone: str | None = None


class WebSearchTool(WireModel):
    """Search the web."""

    type: Literal["web_search", "web_search_2025_08_26"] = "web_search"
    search_context_size: Literal["low", "medium", "high"] | None = None
    user_location: UserLocation | None = None
    filters: dict[str, Any] | None = None


class WebSearchPreviewTool(WireModel):
    """Search the web (the older preview tool names)."""

    type: Literal["web_search_preview", "web_search_preview_2025_03_11"] = "web_search_preview"
    search_context_size: Literal["low", "medium", "high"] | None = None
    user_location: UserLocation | None = None


class FunctionTool(WireModel):
    """A client-side function. The Responses shape is flat (``name`` at top level)."""

    type: Literal["function"] = "function"
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class CodeInterpreterTool(WireModel):
    """Run code in a sandbox container (an id, or ``{"type": "auto", ...}``)."""

    type: Literal["code_interpreter"] = "code_interpreter"
    container: str | dict[str, Any] = Field(default_factory=lambda: {"type": "auto"})


class ComputerUsePreviewTool(WireModel):
    """Drive a computer or browser."""

    type: Literal["computer_use_preview"] = "computer_use_preview"
    display_width: int = 1024
    display_height: int = 768
    environment: str = "browser"


class ListDocumentsTool(WireModel):
    """Knowledge Forge: list documents in vector stores that match a query."""

    type: Literal["list_documents"] = "list_documents"
    vector_store_ids: list[str] = Field(default_factory=empty_list)
    max_num_results: int | None = None
    score_threshold: float | None = None
    deduplicate: bool | None = None
    filters: dict[str, Any] | None = None


class FileReaderTool(WireModel):
    """Knowledge Forge: read a whole document."""

    type: Literal["file_reader"] = "file_reader"


class PageReaderTool(WireModel):
    """Knowledge Forge: read a page range of a document."""

    type: Literal["page_reader"] = "page_reader"


class UnknownTool(WireModel):
    """A tool kind we do not model; passed through to the server unchanged."""

    is_unknown_kind: ClassVar[bool] = True

    type: str


TOOL_TYPES = frozenset(
    {
        "file_search",
        "web_search",
        "web_search_2025_08_26",
        "web_search_preview",
        "web_search_preview_2025_03_11",
        "function",
        "code_interpreter",
        "computer_use_preview",
        "list_documents",
        "file_reader",
        "page_reader",
    }
)


def _tool_tag(value: Any) -> str:
    if getattr(value, "is_unknown_kind", False):
        return "__unknown__"
    raw = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if raw in ("web_search", "web_search_2025_08_26"):
        return "web_search"
    if raw in ("web_search_preview", "web_search_preview_2025_03_11"):
        return "web_search_preview"
    return str(type_tag(TOOL_TYPES, "__unknown__")(value))


Tool = Annotated[
    Annotated[FileSearchTool, BUILT_ON_USE, Tag("file_search")]
    | Annotated[WebSearchTool, BUILT_ON_USE, Tag("web_search")]
    | Annotated[WebSearchPreviewTool, BUILT_ON_USE, Tag("web_search_preview")]
    | Annotated[FunctionTool, BUILT_ON_USE, Tag("function")]
    | Annotated[CodeInterpreterTool, BUILT_ON_USE, Tag("code_interpreter")]
    | Annotated[ComputerUsePreviewTool, BUILT_ON_USE, Tag("computer_use_preview")]
    | Annotated[ListDocumentsTool, BUILT_ON_USE, Tag("list_documents")]
    | Annotated[FileReaderTool, BUILT_ON_USE, Tag("file_reader")]
    | Annotated[PageReaderTool, BUILT_ON_USE, Tag("page_reader")]
    | Annotated[UnknownTool, BUILT_ON_USE, Tag("__unknown__")],
    Discriminator(_tool_tag),
]
"""Any tool definition; an unknown ``type`` becomes :class:`UnknownTool`."""
