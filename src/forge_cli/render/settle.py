"""When an item is settled: it will not change any more, so it may be committed/printed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forge_cli.protocol.guards import (
    is_function_call,
    is_function_call_output,
    is_message,
    is_reasoning,
)
from forge_cli.render.context import RenderContext

__all__ = ["settled"]

_STOPPED = frozenset({"failed", "incomplete", "cancelled"})


def settled(item: object, index: int, count: int, ctx: RenderContext) -> bool:
    """Whether an item will not change any more (and may be committed).

    A finished status alone is not enough for a tool call: OpenAI streams send the call's final
    fields (queries, results) with ``output_item.done`` after the status event, so a tool call
    settles once it is finished *and* a later item has begun (or the answer ends).
    """
    later = index < count - 1
    for guard, rule in _SETTLED:
        if guard(item):
            return rule(item, later, ctx)
    return later and bool(getattr(item, "is_done", False))


def _is_compaction(item: object) -> bool:
    """OpenAI's ``compaction`` item: a note that earlier context was compacted, never running."""
    return getattr(item, "type", None) == "compaction"


_SETTLED: list[tuple[Callable[[object], bool], Callable[[Any, bool, RenderContext], bool]]] = [
    (_is_compaction, lambda item, later, ctx: True),
    (is_message, lambda item, later, ctx: item.is_done or later),
    (is_reasoning, lambda item, later, ctx: item.is_done or later),
    (
        is_function_call,
        lambda item, later, ctx: item.call_id in ctx.outputs or (later and item.status in _STOPPED),
    ),
    (is_function_call_output, lambda item, later, ctx: True),
]
