"""Agent-loop events on screen: which ones are news, and the notice line that says so.

Renderers receive the typed :data:`~forge_cli.protocol.loop_events.LoopEvent` values and
dispatch here with ``match``: a new event type is a mypy error until it is handled. Rich and
plain mode print a notice for a blocked call, a failed call, the iteration limit, a driver
retry, dropped tools and the loop's own notices; a started or completed call, a new iteration and
the evaluator's verdict are not news (the snapshots already show the tool calls). JSONL writes
every event (``render/json_renderer.py``). All text the model or a tool wrote is sanitised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, assert_never

from forge_cli.protocol.loop_events import (
    BudgetExhausted,
    DriverRetry,
    EvaluatorDecision,
    IterationLimitReached,
    IterationStarted,
    LoopEvent,
    Notice,
    ToolCallBlocked,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
    ToolsDropped,
)
from forge_cli.redact import redact
from forge_cli.render.glyphs import Glyphs, Phase, status_look
from forge_cli.sanitize import sanitize_inline

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["notice_for", "notice_line", "notice_parts"]

_BY = {"hook": "a hook", "approval": "approval", "executor": "the executor"}


def _described(event: LoopEvent) -> tuple[Phase, str] | None:
    match event:
        case ToolCallStarted() | ToolCallCompleted() | IterationStarted() | EvaluatorDecision():
            return None
        case ToolCallBlocked(name=name, reason=reason, by=by):
            return "blocked", f"tool call blocked by {_BY[by]}: {name} ({reason})"
        case ToolCallFailed(name=name, error=error):
            return "failed", f"tool call failed: {name} ({error})"
        case IterationLimitReached() | BudgetExhausted():
            return "incomplete", event.message
        case DriverRetry(attempt=attempt, error=error):
            return "incomplete", f"retrying the model (attempt {attempt}): {error}"
        case ToolsDropped(names=names, limit=limit):
            return "incomplete", (
                f"tools left out (a request carries at most {limit}): {', '.join(names)}"
            )
        case Notice(message=message, level=level):
            return ("incomplete" if level == "warning" else "running"), message
        case _:
            assert_never(event)


def notice_parts(event: LoopEvent) -> tuple[Phase, str] | None:
    """The phase and sanitised one-line text of an event worth a notice, else ``None``."""
    described = _described(event)
    if described is None:
        return None
    phase, text = described
    return phase, sanitize_inline(redact(" ".join(text.split())))


def notice_line(event: LoopEvent, glyphs: Glyphs) -> tuple[str, str] | None:
    """The notice line of an event worth one and its rich style (``running`` = an informational
    notice, drawn dim); plain mode writes the text alone."""
    parts = notice_parts(event)
    if parts is None:
        return None
    phase, words = parts
    style = "dim" if phase == "running" else status_look(phase, glyphs).style
    return f"{glyphs.icon(phase)} {words}", style


def notice_for(event: LoopEvent, glyphs: Glyphs) -> Text | None:
    """:func:`notice_line` as a rich Text line."""
    line = notice_line(event, glyphs)
    if line is None:
        return None
    from rich.text import Text

    text, style = line
    return Text(text, style=style)
