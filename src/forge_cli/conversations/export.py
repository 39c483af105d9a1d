"""Export a conversation to Markdown (answers with numbered sources) or JSON.

Citation numbering follows the render layer's rule: the same file and page (or the same URL)
cited twice gets one number. It is computed here from the protocol values because this layer
may not import the terminal renderer.
"""

from __future__ import annotations

import json
import time

from forge_cli.conversations.model import Conversation, Turn
from forge_cli.protocol.annotations import FileCitation, UrlCitation
from forge_cli.protocol.response import Response

__all__ = ["SourceEntry", "sources_of", "to_json", "to_markdown"]

SourceEntry = tuple[int, str]


def sources_of(response: Response) -> list[SourceEntry]:
    """Numbered one-line descriptions of every file or URL the response cites."""
    seen: dict[tuple[str, str, int | None], int] = {}
    lines: list[SourceEntry] = []
    for annotation in response.annotations():
        if isinstance(annotation, FileCitation):
            key = ("file", annotation.file_id or annotation.filename or "", annotation.page)
            name = annotation.filename or annotation.file_id or "file"
            label = f"{name}, page {annotation.page}" if annotation.page is not None else name
        elif isinstance(annotation, UrlCitation):
            key = ("url", annotation.url, None)
            label = f"{annotation.title} — {annotation.url}" if annotation.title else annotation.url
        else:
            continue
        if key not in seen:
            seen[key] = len(seen) + 1
            lines.append((seen[key], label))
    return lines


def _turn_markdown(turn: Turn) -> list[str]:
    response = turn.response()
    lines = ["## You", "", turn.user, "", "## Assistant", ""]
    text = response.output_text
    lines.append(text if text else "_(no answer)_")
    if turn.status != "completed":
        lines.extend(["", f"_({turn.status}{': ' + turn.error if turn.error else ''})_"])
    sources = sources_of(response)
    if sources:
        lines.extend(["", "**Sources**", ""])
        lines.extend(f"{n}. {label}" for n, label in sources)
    lines.append("")
    return lines


def to_markdown(conversation: Conversation) -> str:
    """A readable Markdown transcript with each answer's sources."""
    created = time.strftime("%Y-%m-%d %H:%M", time.localtime(conversation.created_at))
    settings = conversation.settings
    lines = [
        f"# {conversation.title}",
        "",
        f"- id: `{conversation.id}`",
        f"- created: {created}",
        f"- model: {settings.model or 'default'}",
        f"- tools: {', '.join(settings.tools) or 'none'}",
        f"- vector stores: {', '.join(settings.vector_stores) or 'none'}",
        "",
    ]
    for turn in conversation.turns:
        lines.extend(_turn_markdown(turn))
    return "\n".join(lines).rstrip() + "\n"


def to_json(conversation: Conversation) -> str:
    """The conversation as pretty JSON (the same shape as the saved file; it holds no secret)."""
    return json.dumps(conversation.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
