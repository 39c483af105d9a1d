"""Agent-loop events as the renderers accept them: any value with a ``type``.

The agent loop reports things snapshots do not show: a tool call blocked by a hook, the
iteration limit reached, a notice. Renderers accept a mapping (``{"type": ..., ...}``), a pydantic
model or a dataclass; :func:`as_event_dict` turns each into a plain dict. Rich and plain mode
print a *notice* for events that carry news (see :func:`notice_for`); JSONL writes every event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rich.text import Text

from forge_cli.redact import redact
from forge_cli.render.glyphs import Glyphs, Phase, status_look
from forge_cli.sanitize import sanitize_inline

__all__ = ["as_event_dict", "notice_for", "notice_parts"]


def as_event_dict(event: object) -> dict[str, Any]:
    """A plain dict with at least a string ``type``."""
    data: dict[str, Any]
    if isinstance(event, Mapping):
        data = dict(event)
    elif hasattr(event, "model_dump"):
        data = dict(event.model_dump(mode="json"))
    elif dataclasses.is_dataclass(event) and not isinstance(event, type):
        data = dataclasses.asdict(event)
    else:
        data = {"type": str(event)}
    data["type"] = str(data.get("type") or getattr(event, "type", "") or "event")
    return data


_PHASES: list[tuple[tuple[str, ...], Phase]] = [
    (("blocked", "denied", "rejected"), "blocked"),
    (("limit",), "incomplete"),
    (("error", "failed"), "failed"),
    (("warning", "notice", "info", "retry"), "incomplete"),
]


def _describe(event: dict[str, Any]) -> str:
    message = event.get("message") or event.get("reason")
    name = event.get("name") or event.get("tool") or event.get("tool_name")
    limit = event.get("limit")
    parts = [event["type"].replace("_", " ").replace(".", " ")]
    if name:
        parts.append(str(name))
    if limit is not None:
        parts.append(f"limit {limit}")
    text = ": ".join([parts[0], " ".join(parts[1:])]) if len(parts) > 1 else parts[0]
    return f"{text} ({message})" if message and message != name else text


def notice_parts(event: dict[str, Any]) -> tuple[Phase, str] | None:
    """The phase and one-line description of an event worth a notice, else ``None``.

    Events whose type mentions blocked/denied/rejected, limit, error/failed, or
    warning/notice/info/retry get a notice; so does any event carrying a ``message``.
    Started/completed events are not news: snapshots already show those tool calls.
    """
    kind = event["type"].lower()
    phase = next((p for words, p in _PHASES if any(w in kind for w in words)), None)
    if phase is None and not event.get("message"):
        return None
    return (phase or "running"), sanitize_inline(redact(_describe(event)))


def notice_for(event: dict[str, Any], glyphs: Glyphs) -> Text | None:
    """A notice line for rich mode."""
    parts = notice_parts(event)
    if parts is None:
        return None
    phase, words = parts
    look = status_look(phase if phase != "running" else None, glyphs)
    icon = glyphs.icon(phase)
    return Text(f"{icon} {words}", style=look.style if phase != "running" else "dim")
