"""Renderers for client-side function calls and their outputs.

A ``function_call`` is drawn together with its ``function_call_output`` (paired by ``call_id``):
name, compact arguments, a result summary, errors in red. The output item itself draws nothing
when its call is present; an orphan output gets one line of its own.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from forge_cli.protocol.items import FunctionCall, FunctionCallOutput
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import Detail, clip, plural, sub_lines, tool_line

__all__ = ["compact_arguments", "render_function_call", "render_function_output"]


def _value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compact_arguments(call: FunctionCall, limit: int = 60, ellipsis: str = "…") -> str:
    """``city="Paris", days=3`` (cut to ``limit`` characters; raw text when not a JSON object)."""
    parsed = call.parsed_arguments()
    if parsed is None:
        raw = call.arguments
    else:
        raw = ", ".join(f"{name}={_value(value)}" for name, value in parsed.items())
    return clip(raw, limit, ellipsis)


def _is_error(output: FunctionCallOutput) -> bool:
    return bool(output.is_error) or output.status in ("failed", "error")


def _summary(output: FunctionCallOutput, ctx: RenderContext) -> Text:
    lines = [line for line in output.output_text.splitlines() if line.strip()]
    first = lines[0] if lines else "(empty)"
    more = f" (+{plural(len(lines) - 1, 'line')})" if len(lines) > 1 else ""
    style = "red" if _is_error(output) else ""
    return Text(f"{ctx.glyphs.arrow} {clip(first, 80, ctx.glyphs.ellipsis)}{more}", style=style)


def render_function_call(item: FunctionCall, key: str, ctx: RenderContext) -> list[RenderableType]:
    """``✓ Function · completed · get_weather(city="Paris") · 0.3s`` and the result below."""
    output = ctx.outputs.get(item.call_id) if item.call_id else None
    status = item.status
    failed = False
    if output is not None:
        failed = _is_error(output)
        status = "failed" if failed else (output.status or "completed")
    elif status == "completed" and not ctx.final:
        status = "running"
    call = Text(clip(item.name or "function", 40), style="bold")
    call.append(f"({compact_arguments(item, ellipsis=ctx.glyphs.ellipsis)})", style="")
    head = tool_line(ctx, key, status, "Function", [call], failed=failed)
    if output is None:
        return [head]
    subs: list[Detail] = [_summary(output, ctx)]
    return [head, *sub_lines(ctx, subs, style="red" if failed else "dim")]


def render_function_output(
    item: FunctionCallOutput, key: str, ctx: RenderContext
) -> list[RenderableType]:
    """Nothing when paired with its call; otherwise one line of its own."""
    if item.call_id and item.call_id in ctx.call_ids:
        return []
    failed = _is_error(item)
    name = clip(item.name or item.call_id or "function", 40)
    head = tool_line(ctx, key, item.status or "completed", "Function output", [name], failed=failed)
    return [head, *sub_lines(ctx, [_summary(item, ctx)], style="red" if failed else "dim")]
