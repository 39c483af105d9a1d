"""Renderer for reasoning: a dim live tail while streaming; in full or one line at the end."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from forge_cli.protocol.items import Reasoning
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import ToolLine
from forge_cli.render.timing import format_elapsed
from forge_cli.sanitize import sanitize, sanitize_inline

__all__ = ["TAIL_LINES", "render_reasoning"]

TAIL_LINES = 3


def render_reasoning(item: Reasoning, key: str, ctx: RenderContext) -> list[RenderableType]:
    """Live: the last few lines, dim. Final: the whole text when ``show_reasoning`` (and there
    is text: encrypted reasoning has none), else a single line saying how long it reasoned."""
    elapsed = format_elapsed(ctx.clock.elapsed(key))
    glyph = ctx.glyphs.reasoning
    text = item.text
    if ctx.final and (not ctx.show_reasoning or not text.strip()):
        return [Text(f"{glyph} Reasoned for {elapsed}", style="dim")]
    if ctx.final:
        out = Text(f"{glyph} Reasoning ({elapsed})\n", style="dim bold")
        out.append(sanitize(text.strip()), style="dim")
        return [out]
    lines = [line for line in text.splitlines() if line.strip()][-TAIL_LINES:]
    head = Text(f"{glyph} Reasoning{ctx.glyphs.ellipsis} {elapsed}", style="dim bold")
    rows = [ToolLine(head, Text(""))]
    rows += [ToolLine(Text("  " + sanitize_inline(line), style="dim italic"), Text(""))
             for line in lines]  # fmt: skip
    return [Group(*rows)]
