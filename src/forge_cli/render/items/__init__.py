"""One small renderer per output item kind, chosen through the protocol's type guards.

The registry's types load with the package; the renderers (and rich, which they draw with) load
when :data:`ITEM_RENDERERS` or one of their helpers is first used, so plain and JSON output of an
answer that is only text import no rich module (ADR-0023).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge_cli._lazy import lazy_exports
from forge_cli.render.items.registry import (
    ItemEntry,
    ItemRegistry,
    ItemRenderFn,
    Kind,
    RegistryEntry,
    accept_any,
)

if TYPE_CHECKING:
    from forge_cli.render.items.computer import describe_action
    from forge_cli.render.items.function import compact_arguments
    from forge_cli.render.items.message import markdown_block, refusal_line

    ITEM_RENDERERS: ItemRegistry
    """The built-in registry, one entry per item kind of ``protocol.guards.ITEM_GUARDS``."""

__all__ = [
    "ITEM_RENDERERS",
    "ItemEntry",
    "ItemRegistry",
    "ItemRenderFn",
    "Kind",
    "RegistryEntry",
    "compact_arguments",
    "describe_action",
    "markdown_block",
    "refusal_line",
]


def _built_in() -> ItemRegistry:
    """The built-in registry, one entry per item kind of ``protocol.guards.ITEM_GUARDS``."""
    from forge_cli.protocol.guards import (
        is_code_interpreter_call,
        is_computer_call,
        is_file_reader_call,
        is_file_search_call,
        is_function_call,
        is_function_call_output,
        is_list_documents_call,
        is_mcp_approval_request,
        is_mcp_call,
        is_mcp_list_tools,
        is_message,
        is_page_reader_call,
        is_reasoning,
        is_unknown_item,
        is_web_search_call,
    )
    from forge_cli.render.items.code import render_code_interpreter
    from forge_cli.render.items.computer import render_computer_call
    from forge_cli.render.items.function import render_function_call, render_function_output
    from forge_cli.render.items.generic import render_unknown
    from forge_cli.render.items.mcp import (
        render_mcp_approval_request,
        render_mcp_call,
        render_mcp_list_tools,
    )
    from forge_cli.render.items.message import render_message
    from forge_cli.render.items.readers import render_file_reader, render_page_reader
    from forge_cli.render.items.reasoning import render_reasoning
    from forge_cli.render.items.search import (
        render_file_search,
        render_list_documents,
        render_web_search,
    )

    return ItemRegistry(
        [
            RegistryEntry(is_message, render_message, "prose"),
            RegistryEntry(is_reasoning, render_reasoning, "prose"),
            RegistryEntry(is_file_search_call, render_file_search, "status"),
            RegistryEntry(is_web_search_call, render_web_search, "status"),
            RegistryEntry(is_list_documents_call, render_list_documents, "status"),
            RegistryEntry(is_file_reader_call, render_file_reader, "status"),
            RegistryEntry(is_page_reader_call, render_page_reader, "status"),
            RegistryEntry(is_code_interpreter_call, render_code_interpreter, "status"),
            RegistryEntry(is_function_call, render_function_call, "status"),
            RegistryEntry(is_function_call_output, render_function_output, "status"),
            RegistryEntry(is_computer_call, render_computer_call, "status"),
            RegistryEntry(is_mcp_call, render_mcp_call, "status"),
            RegistryEntry(is_mcp_list_tools, render_mcp_list_tools, "status"),
            RegistryEntry(is_mcp_approval_request, render_mcp_approval_request, "status"),
            RegistryEntry(is_unknown_item, render_unknown, "status"),
        ],
        fallback=RegistryEntry(accept_any, render_unknown, "status"),
    )


_helpers = lazy_exports(
    __name__,
    {
        "compact_arguments": "function",
        "describe_action": "computer",
        "markdown_block": "message",
        "refusal_line": "message",
    },
)


def __getattr__(name: str) -> Any:
    if name == "ITEM_RENDERERS":
        # Built once: two threads asking at once keep the first one stored.
        return globals().setdefault(name, _built_in())
    return _helpers(name)
