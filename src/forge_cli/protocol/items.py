"""Output items of a Response: messages, reasoning, every tool-call kind, and Unknown.

Tool *call results* (these items) are separate types from tool *definitions* (``tools.py``).
An unknown ``type`` validates into :class:`UnknownItem`, which keeps the raw fields, so a new
server item kind is shown generically instead of breaking the stream.
"""

from __future__ import annotations

import json as _json
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Discriminator, Field, Tag

from forge_cli import jsonsafe
from forge_cli.protocol._base import BUILT_ON_USE, WireModel, empty_list, type_tag
from forge_cli.protocol.content import (
    ContentPart,
    OutputText,
    ReasoningText,
    Refusal,
    SummaryText,
)
from forge_cli.protocol.traceable import TraceableToolCall

__all__ = [
    "ITEM_TYPES",
    "TERMINAL_STATUSES",
    "CodeInterpreterCall",
    "ComputerCall",
    "FileReaderCall",
    "FileSearchCall",
    "FileSearchResult",
    "FunctionCall",
    "FunctionCallOutput",
    "ListDocumentsCall",
    "McpApprovalRequest",
    "McpCall",
    "McpListTools",
    "McpToolInfo",
    "Message",
    "OutputItem",
    "PageReaderCall",
    "Reasoning",
    "UnknownItem",
    "WebSearchAction",
    "WebSearchCall",
    "WebSearchSource",
]

TERMINAL_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled"})
"""Statuses after which an item does not change. Others (in_progress, searching, interpreting,
reading, ...) mean the item is still running. Statuses are kept as text: servers invent new ones."""


class _Item(WireModel):
    id: str | None = None
    status: str | None = None

    @property
    def is_done(self) -> bool:
        """Whether the item reached a terminal status."""
        return self.status in TERMINAL_STATUSES


class Message(_Item):
    """An assistant message: answer text (with annotations) and refusals."""

    type: Literal["message"] = "message"
    role: str = "assistant"
    content: list[ContentPart] = Field(default_factory=empty_list)

    @property
    def text(self) -> str:
        """All output text of this message, joined."""
        return "".join(part.text for part in self.content if isinstance(part, OutputText))

    @property
    def refusal(self) -> str | None:
        """The refusal text, if the model refused."""
        parts = [part.refusal for part in self.content if isinstance(part, Refusal)]
        return "".join(parts) if parts else None


class Reasoning(_Item):
    """The model's reasoning: summary parts and, for some servers, raw reasoning text."""

    type: Literal["reasoning"] = "reasoning"
    summary: list[SummaryText] = Field(default_factory=empty_list)
    content: list[ReasoningText] | None = None
    encrypted_content: str | None = None

    @property
    def summary_text(self) -> str:
        """The summary parts separated by blank lines."""
        return "\n\n".join(part.text for part in self.summary if part.text)

    @property
    def text(self) -> str:
        """The summary, or the raw reasoning text when there is no summary."""
        if self.summary_text:
            return self.summary_text
        return "\n\n".join(part.text for part in self.content or [] if part.text)


class FileSearchResult(WireModel):
    """One passage found by file search."""

    file_id: str | None = None
    filename: str | None = None
    score: float | None = None
    text: str | None = None
    attributes: dict[str, Any] | None = None
    page: int | None = None


class FileSearchCall(_Item):
    """A search over vector stores."""

    type: Literal["file_search_call"] = "file_search_call"
    queries: list[str] = Field(default_factory=empty_list)
    results: list[FileSearchResult] | None = None


class WebSearchSource(WireModel):
    """A web page a search used, or (``type: "api"``) a data feed named by ``name``, no URL."""

    type: str = "url"
    url: str = ""
    title: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        """What names the source for a person: its title, URL, or feed name."""
        return self.title or self.url or self.name or f"{self.type} source"


class WebSearchAction(WireModel):
    """What a web search call did: ``search``, ``open_page`` or ``find_in_page``."""

    type: str = "search"
    query: str | None = None
    queries: list[str] | None = None
    sources: list[WebSearchSource] | None = None
    url: str | None = None
    pattern: str | None = None


class WebSearchCall(_Item):
    """A web search. Knowledge Forge puts ``queries`` on the item; OpenAI in ``action``."""

    type: Literal["web_search_call"] = "web_search_call"
    action: WebSearchAction | None = None
    queries: list[str] | None = None
    sources: list[WebSearchSource] | None = None

    def all_queries(self) -> list[str]:
        """Every query, wherever the server put it, without duplicates."""
        found: list[str] = list(self.queries or [])
        if self.action is not None:
            if self.action.query:
                found.append(self.action.query)
            found.extend(self.action.queries or [])
        return list(dict.fromkeys(q for q in found if q))

    annotations: list[dict[str, Any]] | None = None
    """Knowledge Forge: the pages found, as ``url_citation`` annotations on the call."""

    def all_sources(self) -> list[WebSearchSource]:
        """Every source, wherever the server put it (KF annotations included), once each."""
        found = list(self.sources or [])
        if self.action is not None:
            found.extend(self.action.sources or [])
        for ann in self.annotations or []:
            if isinstance(ann, dict) and ann.get("url"):
                title = ann.get("title")
                found.append(WebSearchSource(url=str(ann["url"]), title=title if title else None))
        unique: dict[tuple[str, str, str | None], WebSearchSource] = {}
        for source in found:
            key = (source.type, source.url, None if source.url else source.name)
            unique.setdefault(key, source)
        return list(unique.values())


class FunctionCall(_Item):
    """A call of a client-side function; ``call_id`` is echoed back with its output."""

    type: Literal["function_call"] = "function_call"
    call_id: str = ""
    name: str = ""
    arguments: str = ""

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as a dict, or ``None`` when they are not a JSON object."""
        try:
            value = jsonsafe.loads(self.arguments or "{}")
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


class FunctionCallOutput(_Item):
    """The result of a function call, as sent back to the model."""

    type: Literal["function_call_output"] = "function_call_output"
    call_id: str = ""
    output: str | list[dict[str, Any]] = ""
    name: str | None = None
    is_error: bool | None = None

    @property
    def output_text(self) -> str:
        """The output as text (text parts joined when it is a list)."""
        if isinstance(self.output, str):
            return self.output
        return "".join(str(part.get("text", "")) for part in self.output)


class CodeInterpreterCall(_Item, TraceableToolCall):
    """Code run in a sandbox; ``outputs`` holds logs and images."""

    type: Literal["code_interpreter_call"] = "code_interpreter_call"
    container_id: str | None = None
    code: str | None = None
    outputs: list[dict[str, Any]] | None = None
    results: list[dict[str, Any]] | None = None
    """Knowledge Forge's name for ``outputs`` (``logs`` and ``files`` entries)."""

    def all_outputs(self) -> list[dict[str, Any]]:
        """OpenAI ``outputs`` and Knowledge Forge ``results``, in that order."""
        found = [*(self.outputs or []), *(self.results or [])]
        return [out for out in found if isinstance(out, dict)]

    def logs(self) -> str:
        """All log outputs joined."""
        return "".join(
            str(out.get("logs", "")) for out in self.all_outputs() if out.get("type") == "logs"
        )

    def files(self) -> list[str]:
        """Names of the files and images the code produced (file name, id or URL)."""
        names: list[str] = []
        for out in self.all_outputs():
            if out.get("type") == "image":
                url = str(out.get("url") or "")
                inline = url.startswith("data:")  # the picture itself: name its type only
                kind = url[5:].split(";", 1)[0] if inline else ""
                names.append(
                    f"image ({kind})" if inline else url or str(out.get("file_id") or "image")
                )
            for entry in out.get("files") or [] if out.get("type") == "files" else []:
                if isinstance(entry, dict):
                    name = entry.get("filename") or entry.get("file_id") or entry.get("mime_type")
                    names.append(str(name or "file"))
        return names


class ComputerCall(_Item):
    """A computer-use action."""

    type: Literal["computer_call"] = "computer_call"
    call_id: str | None = None
    action: dict[str, Any] | None = None
    actions: list[dict[str, Any]] | None = None
    pending_safety_checks: list[dict[str, Any]] = Field(default_factory=empty_list)


class ListDocumentsCall(_Item, TraceableToolCall):
    """Knowledge Forge: list the documents of vector stores that match queries."""

    type: Literal["list_documents_call"] = "list_documents_call"
    queries: list[str] = Field(default_factory=empty_list)
    count: int | None = None
    documents: list[dict[str, Any]] | None = None


class FileReaderCall(_Item, TraceableToolCall):
    """Knowledge Forge: read one or more documents."""

    type: Literal["file_reader_call"] = "file_reader_call"
    doc_ids: list[str] = Field(default_factory=empty_list)
    query: str | None = None
    file_name: str | None = None
    navigation: Any = None
    content: str | None = None


class PageReaderCall(_Item, TraceableToolCall):
    """Knowledge Forge: read a page range of a document."""

    type: Literal["page_reader_call"] = "page_reader_call"
    document_id: str = ""
    start_page: int | None = None
    end_page: int | None = None
    file_name: str | None = None
    content: str | None = None


class McpCall(_Item, TraceableToolCall):
    """A call of a tool on an MCP server: hosted (the server ran it) or run by Forge's loop.

    Hosted calls (Responses ``mcp_call``) carry ``server_label``, ``name``, ``arguments``,
    ``output`` and ``error``. Calls Forge runs itself add ``call_id`` (the function call the model
    made), ``duration_ms`` and live ``progress``/``execution_trace`` from MCP progress
    notifications.
    """

    type: Literal["mcp_call"] = "mcp_call"
    server_label: str = ""
    name: str = ""
    arguments: str = ""
    output: str | None = None
    error: str | dict[str, Any] | None = None
    approval_request_id: str | None = None
    call_id: str | None = None
    duration_ms: int | None = None

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as a dict, or ``None`` when they are not a JSON object."""
        try:
            value = jsonsafe.loads(self.arguments or "{}")
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    @property
    def error_text(self) -> str | None:
        """The error as one text (servers send a string or an object with ``message``)."""
        if self.error is None or self.error == "":
            return None
        if isinstance(self.error, dict):
            return str(self.error.get("message") or _json.dumps(self.error, ensure_ascii=False))
        return self.error


class McpToolInfo(WireModel):
    """One tool an MCP server offers (as listed in ``mcp_list_tools``)."""

    name: str = ""
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None


class McpListTools(_Item):
    """The tools an MCP server offered (hosted: the server listed them for the model)."""

    type: Literal["mcp_list_tools"] = "mcp_list_tools"
    server_label: str = ""
    tools: list[McpToolInfo] = Field(default_factory=empty_list)
    error: str | dict[str, Any] | None = None


class McpApprovalRequest(_Item):
    """A hosted MCP call waiting for approval (answered with ``mcp_approval_response``)."""

    type: Literal["mcp_approval_request"] = "mcp_approval_request"
    server_label: str = ""
    name: str = ""
    arguments: str = ""


class UnknownItem(WireModel):
    """An item kind we do not know. All its fields are kept (``model_extra``)."""

    is_unknown_kind: ClassVar[bool] = True

    type: str = "unknown"
    id: str | None = None
    status: str | None = None

    @property
    def is_done(self) -> bool:
        """Whether the item reached a terminal status."""
        return self.status in TERMINAL_STATUSES


ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "file_search_call",
        "web_search_call",
        "function_call",
        "function_call_output",
        "code_interpreter_call",
        "computer_call",
        "list_documents_call",
        "file_reader_call",
        "page_reader_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
    }
)

OutputItem = Annotated[
    Annotated[Message, BUILT_ON_USE, Tag("message")]
    | Annotated[Reasoning, BUILT_ON_USE, Tag("reasoning")]
    | Annotated[FileSearchCall, BUILT_ON_USE, Tag("file_search_call")]
    | Annotated[WebSearchCall, BUILT_ON_USE, Tag("web_search_call")]
    | Annotated[FunctionCall, BUILT_ON_USE, Tag("function_call")]
    | Annotated[FunctionCallOutput, BUILT_ON_USE, Tag("function_call_output")]
    | Annotated[CodeInterpreterCall, BUILT_ON_USE, Tag("code_interpreter_call")]
    | Annotated[ComputerCall, BUILT_ON_USE, Tag("computer_call")]
    | Annotated[ListDocumentsCall, BUILT_ON_USE, Tag("list_documents_call")]
    | Annotated[FileReaderCall, BUILT_ON_USE, Tag("file_reader_call")]
    | Annotated[PageReaderCall, BUILT_ON_USE, Tag("page_reader_call")]
    | Annotated[McpCall, BUILT_ON_USE, Tag("mcp_call")]
    | Annotated[McpListTools, BUILT_ON_USE, Tag("mcp_list_tools")]
    | Annotated[McpApprovalRequest, BUILT_ON_USE, Tag("mcp_approval_request")]
    | Annotated[UnknownItem, BUILT_ON_USE, Tag("__unknown__")],
    Discriminator(type_tag(ITEM_TYPES, "__unknown__")),
]
"""Any output item; an unknown ``type`` becomes :class:`UnknownItem`."""
