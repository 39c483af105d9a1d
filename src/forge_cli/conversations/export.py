"""Export a conversation to Markdown (answers with numbered sources) or JSON.

Citation numbers are the render layer's (:mod:`forge_cli.protocol.citations`, which needs no rich):
the numbers in an exported answer, in ``/sources`` and on screen are the same.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from forge_cli.conversations.model import Conversation, Turn
from forge_cli.protocol.citations import cited_text, collect_citations, source_label
from forge_cli.protocol.response import Response
from forge_cli.redact import redact
from forge_cli.sanitize import sanitize_inline

__all__ = ["SourceEntry", "sources_of", "to_json", "to_markdown", "write_export"]

SourceEntry = tuple[int, str]


def sources_of(response: Response) -> list[SourceEntry]:
    """Numbered one-line descriptions of every source the response cites.

    The numbers are the screen's; a web source keeps its full URL (the screen shows the domain).
    """
    entries: list[SourceEntry] = []
    for citation in collect_citations(response):
        if citation.url:
            label = f"{citation.title} — {citation.url}" if citation.title else citation.url
            entries.append((citation.n, sanitize_inline(label)))
        else:
            entries.append((citation.n, source_label(citation)))
    return entries


def _turn_markdown(turn: Turn) -> list[str]:
    response = turn.response()
    lines = ["## You", "", turn.user, "", "## Assistant", ""]
    text = cited_text(response)
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
    return redact("\n".join(lines).rstrip() + "\n")


def to_json(conversation: Conversation) -> str:
    """The conversation as pretty JSON (the same shape as the saved file; it holds no secret)."""
    text = json.dumps(conversation.model_dump(mode="json"), indent=2, ensure_ascii=False)
    return redact(text) + "\n"


def write_export(path: Path, text: str, *, overwrite: bool = False) -> None:
    """Write an export to ``path`` (mode 0600: it holds the conversation); an existing file is
    kept unless ``overwrite``. Raises ``FileExistsError`` / ``OSError``."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
