"""Renderer for item kinds we do not know: one generic line with the type and status."""

from __future__ import annotations

from rich.console import RenderableType

from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import clip, tool_line

__all__ = ["render_unknown"]


def render_unknown(item: object, key: str, ctx: RenderContext) -> list[RenderableType]:
    """``● tool_x · in progress · 0.2s`` for any item kind without a renderer."""
    kind = str(getattr(item, "type", "item") or "item")
    label = clip(kind.removesuffix("_call").replace("_", " ").capitalize(), 40)
    return [tool_line(ctx, key, getattr(item, "status", None), label)]
