"""What item renderers need to know besides the item: glyphs, timings, settings, pairings."""

from __future__ import annotations

from dataclasses import dataclass, field

from forge_cli.protocol.citations import CitationNumbering
from forge_cli.protocol.guards import is_function_call, is_function_call_output
from forge_cli.protocol.items import FunctionCallOutput
from forge_cli.protocol.response import Response
from forge_cli.render.glyphs import Glyphs
from forge_cli.render.timing import ItemClock

__all__ = ["RenderContext", "item_key"]


def item_key(item: object, index: int) -> str:
    """A stable key for timing an item: its id, else its call id, else its position."""
    for name in ("id", "call_id"):
        value = getattr(item, name, None)
        if isinstance(value, str) and value:
            return value
    return f"#{index}"


@dataclass
class RenderContext:
    """Shared state for one render pass over a snapshot."""

    glyphs: Glyphs
    clock: ItemClock
    numbering: CitationNumbering
    final: bool = False
    show_reasoning: bool = False
    outputs: dict[str, FunctionCallOutput] = field(default_factory=dict)
    call_ids: set[str] = field(default_factory=set)

    @classmethod
    def for_response(
        cls,
        response: Response,
        *,
        glyphs: Glyphs,
        clock: ItemClock,
        numbering: CitationNumbering,
        final: bool,
        show_reasoning: bool,
    ) -> RenderContext:
        """A context with the function-call/output pairing of ``response``."""
        ctx = cls(glyphs, clock, numbering, final, show_reasoning)
        for item in response.output:
            if is_function_call_output(item) and item.call_id:
                ctx.outputs[item.call_id] = item
            elif is_function_call(item) and item.call_id:
                ctx.call_ids.add(item.call_id)
        return ctx
