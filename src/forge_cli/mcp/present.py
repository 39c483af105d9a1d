"""Show MCP tool calls as MCP calls: the loop's ``function_call`` items become ``mcp_call`` ones.

The agent loop runs an MCP tool like any other function tool (the model called ``server__tool``);
for the person watching, each such call is drawn as an :class:`~forge_cli.protocol.items.McpCall`
with the server, the tool's own name, the arguments, the result or error, the duration and live
progress, and its ``function_call_output`` is folded into it. Pure: snapshots in, snapshots out.
"""

from __future__ import annotations

from collections.abc import Callable

from forge_cli.mcp.live import LiveCalls
from forge_cli.protocol.items import FunctionCall, FunctionCallOutput, McpCall, OutputItem
from forge_cli.protocol.response import Response

__all__ = ["present"]

Lookup = Callable[[str], tuple[str, str] | None]
"""Function-tool name → (server, MCP tool name), or ``None`` for tools that are not MCP's."""


def present(response: Response, lookup: Lookup, live: LiveCalls) -> Response:
    """``response`` with every MCP function call drawn as an ``mcp_call`` item."""
    calls: dict[str, tuple[str, str]] = {}
    for item in response.output:
        if isinstance(item, FunctionCall) and item.call_id:
            found = lookup(item.name)
            if found is not None:
                calls[item.call_id] = found
    if not calls:
        return response
    outputs = {
        item.call_id: item
        for item in response.output
        if isinstance(item, FunctionCallOutput) and item.call_id in calls
    }
    shown: list[OutputItem] = []
    for item in response.output:
        if isinstance(item, FunctionCallOutput) and item.call_id in calls:
            continue
        if isinstance(item, FunctionCall) and item.call_id in calls:
            server, tool = calls[item.call_id]
            final = response.status != "in_progress"
            output = outputs.get(item.call_id)
            shown.append(_as_mcp_call(item, server, tool, output, live, final=final))
        else:
            shown.append(item)
    return response.model_copy(update={"output": shown})


def _as_mcp_call(
    call: FunctionCall,
    server: str,
    tool: str,
    output: FunctionCallOutput | None,
    live: LiveCalls,
    *,
    final: bool,
) -> McpCall:
    state = live.get(call.call_id)
    status = call.status or "in_progress"
    if output is None and not final and status in ("completed", "failed"):
        status = "in_progress"  # settled only once its result is in the snapshot
    text = output.output_text if output is not None else None
    failed = output is not None and (bool(output.is_error) or status in ("failed", "incomplete"))
    if output is not None:
        blocked = call.status == "incomplete"  # denied, or not run (the loop's "blocked")
        status = "incomplete" if blocked else ("failed" if failed else "completed")
    return McpCall(
        id=call.id or call.call_id,
        status=status,
        server_label=server,
        name=tool,
        arguments=call.arguments,
        output=None if failed else text,
        error=text if failed else None,
        call_id=call.call_id,
        duration_ms=state.duration_ms if state is not None else None,
        progress=state.progress if state is not None else None,
        execution_trace="\n".join(state.trace) if state is not None and state.trace else None,
    )
