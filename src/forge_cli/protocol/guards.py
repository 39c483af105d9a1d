"""Type guards: one per output item kind, annotation kind and tool kind.

Renderers dispatch items through these: ``render.items.ITEM_RENDERERS`` is a registry of
``RegistryEntry(guard, renderer, kind)`` entries, generic in the item type, so mypy rejects a guard
paired with another kind's renderer. Code that handles only a few kinds (the agent state and
drivers, the Chat Completions request builder, the stream builder) uses these guards or a
``match`` on the item classes, never if/elif chains of ``isinstance``. ``ITEM_GUARDS``,
``ANNOTATION_GUARDS`` and ``TOOL_GUARDS`` list them so a test can check that every union member has
its guard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

from forge_cli.protocol.annotations import (
    ANNOTATION_TYPES,
    ContainerFileCitation,
    FileCitation,
    FilePath,
    UnknownAnnotation,
    UrlCitation,
)
from forge_cli.protocol.items import (
    ITEM_TYPES,
    CodeInterpreterCall,
    ComputerCall,
    FileReaderCall,
    FileSearchCall,
    FunctionCall,
    FunctionCallOutput,
    ListDocumentsCall,
    McpApprovalRequest,
    McpCall,
    McpListTools,
    Message,
    PageReaderCall,
    Reasoning,
    UnknownItem,
    WebSearchCall,
)
from forge_cli.protocol.tools import (
    CodeInterpreterTool,
    ComputerUsePreviewTool,
    FileReaderTool,
    FileSearchTool,
    FunctionTool,
    ListDocumentsTool,
    PageReaderTool,
    UnknownTool,
    WebSearchPreviewTool,
    WebSearchTool,
)
from forge_cli.protocol.traceable import TraceableToolCall

__all__ = [
    "ANNOTATION_GUARDS",
    "ITEM_GUARDS",
    "TOOL_GUARDS",
    "is_code_interpreter_call",
    "is_code_interpreter_tool",
    "is_computer_call",
    "is_computer_tool",
    "is_container_file_citation",
    "is_file_citation",
    "is_file_path",
    "is_file_reader_call",
    "is_file_reader_tool",
    "is_file_search_call",
    "is_file_search_tool",
    "is_function_call",
    "is_function_call_output",
    "is_function_tool",
    "is_list_documents_call",
    "is_list_documents_tool",
    "is_mcp_approval_request",
    "is_mcp_call",
    "is_mcp_item",
    "is_mcp_list_tools",
    "is_message",
    "is_page_reader_call",
    "is_page_reader_tool",
    "is_reasoning",
    "is_tool_call",
    "is_traceable",
    "is_unknown_annotation",
    "is_unknown_item",
    "is_unknown_tool",
    "is_url_citation",
    "is_web_search_call",
    "is_web_search_tool",
]


# --- output items -----------------------------------------------------------------------------


def is_message(item: object) -> TypeGuard[Message]:
    """An assistant message."""
    return isinstance(item, Message)


def is_reasoning(item: object) -> TypeGuard[Reasoning]:
    """A reasoning item."""
    return isinstance(item, Reasoning)


def is_file_search_call(item: object) -> TypeGuard[FileSearchCall]:
    """A file search call."""
    return isinstance(item, FileSearchCall)


def is_web_search_call(item: object) -> TypeGuard[WebSearchCall]:
    """A web search call."""
    return isinstance(item, WebSearchCall)


def is_function_call(item: object) -> TypeGuard[FunctionCall]:
    """A client-side function call."""
    return isinstance(item, FunctionCall)


def is_function_call_output(item: object) -> TypeGuard[FunctionCallOutput]:
    """The output of a function call."""
    return isinstance(item, FunctionCallOutput)


def is_code_interpreter_call(item: object) -> TypeGuard[CodeInterpreterCall]:
    """A code interpreter call."""
    return isinstance(item, CodeInterpreterCall)


def is_computer_call(item: object) -> TypeGuard[ComputerCall]:
    """A computer-use call."""
    return isinstance(item, ComputerCall)


def is_list_documents_call(item: object) -> TypeGuard[ListDocumentsCall]:
    """A list-documents call."""
    return isinstance(item, ListDocumentsCall)


def is_file_reader_call(item: object) -> TypeGuard[FileReaderCall]:
    """A file reader call."""
    return isinstance(item, FileReaderCall)


def is_page_reader_call(item: object) -> TypeGuard[PageReaderCall]:
    """A page reader call."""
    return isinstance(item, PageReaderCall)


def is_mcp_call(item: object) -> TypeGuard[McpCall]:
    """A call of an MCP server's tool (hosted, or run by Forge's loop)."""
    return isinstance(item, McpCall)


def is_mcp_list_tools(item: object) -> TypeGuard[McpListTools]:
    """An MCP server's tool listing."""
    return isinstance(item, McpListTools)


def is_mcp_approval_request(item: object) -> TypeGuard[McpApprovalRequest]:
    """A hosted MCP call waiting for approval."""
    return isinstance(item, McpApprovalRequest)


def is_mcp_item(item: object) -> TypeGuard[McpCall | McpListTools | McpApprovalRequest]:
    """Any of the MCP item kinds (one renderer family draws them)."""
    return isinstance(item, McpCall | McpListTools | McpApprovalRequest)


def is_unknown_item(item: object) -> TypeGuard[UnknownItem]:
    """An item kind we do not know."""
    return isinstance(item, UnknownItem)


def is_traceable(item: object) -> TypeGuard[TraceableToolCall]:
    """A tool call that carries progress and an execution trace."""
    return isinstance(item, TraceableToolCall)


def is_tool_call(item: object) -> bool:
    """Any tool call (everything but messages and reasoning)."""
    return not isinstance(item, Message | Reasoning)


ITEM_GUARDS: dict[str, Callable[[object], bool]] = {
    "message": is_message,
    "reasoning": is_reasoning,
    "file_search_call": is_file_search_call,
    "web_search_call": is_web_search_call,
    "function_call": is_function_call,
    "function_call_output": is_function_call_output,
    "code_interpreter_call": is_code_interpreter_call,
    "computer_call": is_computer_call,
    "list_documents_call": is_list_documents_call,
    "file_reader_call": is_file_reader_call,
    "page_reader_call": is_page_reader_call,
    "mcp_call": is_mcp_call,
    "mcp_list_tools": is_mcp_list_tools,
    "mcp_approval_request": is_mcp_approval_request,
    "__unknown__": is_unknown_item,
}
assert set(ITEM_GUARDS) - {"__unknown__"} == ITEM_TYPES


# --- annotations ------------------------------------------------------------------------------


def is_file_citation(annotation: object) -> TypeGuard[FileCitation]:
    """A file citation."""
    return isinstance(annotation, FileCitation)


def is_url_citation(annotation: object) -> TypeGuard[UrlCitation]:
    """A URL citation."""
    return isinstance(annotation, UrlCitation)


def is_file_path(annotation: object) -> TypeGuard[FilePath]:
    """A file path annotation."""
    return isinstance(annotation, FilePath)


def is_container_file_citation(annotation: object) -> TypeGuard[ContainerFileCitation]:
    """A container file citation."""
    return isinstance(annotation, ContainerFileCitation)


def is_unknown_annotation(annotation: object) -> TypeGuard[UnknownAnnotation]:
    """An annotation kind we do not know."""
    return isinstance(annotation, UnknownAnnotation)


ANNOTATION_GUARDS: dict[str, Callable[[object], bool]] = {
    "file_citation": is_file_citation,
    "url_citation": is_url_citation,
    "file_path": is_file_path,
    "container_file_citation": is_container_file_citation,
    "__unknown__": is_unknown_annotation,
}
assert set(ANNOTATION_GUARDS) - {"__unknown__"} == ANNOTATION_TYPES


# --- tool definitions -------------------------------------------------------------------------


def is_file_search_tool(tool: object) -> TypeGuard[FileSearchTool]:
    """A file search tool definition."""
    return isinstance(tool, FileSearchTool)


def is_web_search_tool(tool: object) -> TypeGuard[WebSearchTool | WebSearchPreviewTool]:
    """A web search tool definition (any of the web_search / web_search_preview names)."""
    return isinstance(tool, WebSearchTool | WebSearchPreviewTool)


def is_function_tool(tool: object) -> TypeGuard[FunctionTool]:
    """A function tool definition."""
    return isinstance(tool, FunctionTool)


def is_code_interpreter_tool(tool: object) -> TypeGuard[CodeInterpreterTool]:
    """A code interpreter tool definition."""
    return isinstance(tool, CodeInterpreterTool)


def is_computer_tool(tool: object) -> TypeGuard[ComputerUsePreviewTool]:
    """A computer-use tool definition."""
    return isinstance(tool, ComputerUsePreviewTool)


def is_list_documents_tool(tool: object) -> TypeGuard[ListDocumentsTool]:
    """A list-documents tool definition."""
    return isinstance(tool, ListDocumentsTool)


def is_file_reader_tool(tool: object) -> TypeGuard[FileReaderTool]:
    """A file reader tool definition."""
    return isinstance(tool, FileReaderTool)


def is_page_reader_tool(tool: object) -> TypeGuard[PageReaderTool]:
    """A page reader tool definition."""
    return isinstance(tool, PageReaderTool)


def is_unknown_tool(tool: object) -> TypeGuard[UnknownTool]:
    """A tool kind we pass through without modelling it."""
    return isinstance(tool, UnknownTool)


TOOL_GUARDS: dict[str, Callable[[Any], bool]] = {
    "file_search": is_file_search_tool,
    "web_search": is_web_search_tool,
    "web_search_preview": is_web_search_tool,
    "function": is_function_tool,
    "code_interpreter": is_code_interpreter_tool,
    "computer_use_preview": is_computer_tool,
    "list_documents": is_list_documents_tool,
    "file_reader": is_file_reader_tool,
    "page_reader": is_page_reader_tool,
    "__unknown__": is_unknown_tool,
}
