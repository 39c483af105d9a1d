"""Renderer for computer-use calls: the action in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import RenderableType

from forge_cli.protocol.items import ComputerCall
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import clip, sub_lines, tool_line

__all__ = ["describe_action", "render_computer_call"]


def _at(action: dict[str, Any]) -> str:
    x, y = action.get("x"), action.get("y")
    return f" at ({x}, {y})" if x is not None and y is not None else ""


_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "click": lambda a: f"{a.get('button', 'left')} click{_at(a)}",
    "double_click": lambda a: f"double click{_at(a)}",
    "drag": lambda a: f"drag along {len(a.get('path') or [])} points",
    "keypress": lambda a: "press " + "+".join(str(k) for k in a.get("keys") or []),
    "move": lambda a: f"move the pointer{_at(a)}",
    "screenshot": lambda a: "take a screenshot",
    "scroll": lambda a: f"scroll by ({a.get('scroll_x', 0)}, {a.get('scroll_y', 0)}){_at(a)}",
    "type": lambda a: f"type {clip(a.get('text', ''), 40)!r}",
    "wait": lambda a: "wait",
}


def describe_action(action: dict[str, Any]) -> str:
    """``left click at (10, 20)``, ``type 'hello'``, ``press CTRL+C``..."""
    kind = str(action.get("type", "action"))
    words = _WORDS.get(kind)
    return clip(words(action) if words else kind.replace("_", " "), 80)


def render_computer_call(item: ComputerCall, key: str, ctx: RenderContext) -> list[RenderableType]:
    """One line with the action, plus one line per further batched action."""
    actions = list(item.actions or []) or ([item.action] if item.action else [])
    first = describe_action(actions[0]) if actions else None
    head = tool_line(ctx, key, item.status, "Computer", [first])
    rest = [describe_action(action) for action in actions[1:]]
    checks = [f"safety check: {clip(c.get('message') or c.get('code'), 60)}"
              for c in item.pending_safety_checks]  # fmt: skip
    return [head, *sub_lines(ctx, [*rest, *checks])]
