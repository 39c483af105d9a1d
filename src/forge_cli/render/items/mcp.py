"""Renderers for MCP items: tool calls (hosted or run by Forge), tool listings, approval requests.

One look for every MCP call, wherever it ran: ``✓ MCP · completed · docs/search(query="x") ·
0.4s``, a progress bar with the server's message while it runs, and the result (or the error, in
red) below. Server and tool names, arguments and results are untrusted text: everything goes
through the common helpers, which sanitise.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from forge_cli.protocol.items import McpApprovalRequest, McpCall, McpListTools
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import Detail, clip, progress_bar, sub_lines, tool_line
from forge_cli.render.items.function import compact_arguments

__all__ = ["render_mcp_approval_request", "render_mcp_call", "render_mcp_list_tools"]

TRACE_LINES = 2


def _call_text(server: str, name: str, arguments: str, ctx: RenderContext) -> Text:
    from forge_cli.protocol.items import FunctionCall

    text = Text(clip(server or "mcp", 24), style="cyan")
    text.append("/")
    text.append(clip(name or "tool", 40), style="bold")
    shown = compact_arguments(FunctionCall(arguments=arguments), ellipsis=ctx.glyphs.ellipsis)
    text.append(f"({shown})")
    return text


def _first_line(text: str, ctx: RenderContext) -> Text:
    lines = [line for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else "(empty)"
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return Text(f"{ctx.glyphs.arrow} {clip(first, 80, ctx.glyphs.ellipsis)}{more}")


def render_mcp_call(item: McpCall, key: str, ctx: RenderContext) -> list[RenderableType]:
    """The call line, live progress and trace, then the result or the error."""
    error = item.error_text
    failed = error is not None or item.status == "failed"
    details: list[Detail | None] = [_call_text(item.server_label, item.name, item.arguments, ctx)]
    if item.progress is not None and not item.is_done:
        details.append(progress_bar(item.progress, ctx, width=10))
    head = tool_line(ctx, key, item.status, "MCP", details, failed=failed)
    subs: list[Detail] = []
    if not item.is_done:
        subs.extend(clip(line, 80, ctx.glyphs.ellipsis) for line in item.trace_lines(TRACE_LINES))
    if error is not None:
        subs.append(_first_line(error, ctx))
    elif item.output is not None:
        subs.append(_first_line(item.output, ctx))
    return [head, *sub_lines(ctx, subs, style="red" if failed else "dim")]


def render_mcp_list_tools(item: McpListTools, key: str, ctx: RenderContext) -> list[RenderableType]:
    """``✓ MCP tools · completed · docs · 3 tools`` and their names."""
    server = Text(clip(item.server_label or "mcp", 24), style="cyan")
    count = f"{len(item.tools)} tool{'s' if len(item.tools) != 1 else ''}"
    error = item.error if isinstance(item.error, str) else None
    status = item.status or ("completed" if item.tools or ctx.final else "in_progress")
    head = tool_line(ctx, key, status, "MCP tools", [server, count], failed=bool(item.error))
    names = ", ".join(tool.name for tool in item.tools)
    subs: list[Detail] = [clip(names, 100, ctx.glyphs.ellipsis)] if names else []
    if error:
        subs.append(clip(error, 100, ctx.glyphs.ellipsis))
    return [head, *sub_lines(ctx, subs)]


def render_mcp_approval_request(
    item: McpApprovalRequest, key: str, ctx: RenderContext
) -> list[RenderableType]:
    """``? MCP approval · docs/delete(id="x")``: the server waits for an answer."""
    call = _call_text(item.server_label, item.name, item.arguments, ctx)
    return [tool_line(ctx, key, "awaiting approval", "MCP approval", [call])]
