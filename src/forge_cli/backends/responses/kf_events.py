"""Read a Knowledge Forge stream the way the older Knowledge Forge CLI did.

Two fields mean something else on a Knowledge Forge server than on OpenAI's:

- ``file_citation.index`` is the cited **page** (the older CLI shows it as ``P{index}``), not a
  character position in the text. It becomes ``page`` (unless the server sent one) and the
  misleading ``index`` is dropped, so markers are matched by order, never inserted mid-word.
- ``page_reader_call.start_page`` / ``end_page`` count from 0; Forge shows pages from 1 (as its
  own engine and every PDF viewer do), so both are shifted by one.

Used only with ``--api knowledge-forge`` (see ``docs/servers.md``).
"""

from __future__ import annotations

from typing import Any

from forge_cli.protocol.events import StreamEvent

__all__ = ["knowledge_forge_event"]

_MAX_DEPTH = 64


def knowledge_forge_event(event: StreamEvent) -> StreamEvent:
    """``event`` with Knowledge Forge's page fields rewritten in place (its data is ours)."""
    _walk(event.data, 0)
    return event


def _walk(value: Any, depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        kind = value.get("type")
        if kind == "file_citation":
            _citation(value)
        elif kind == "page_reader_call":
            _pages(value)
        for child in value.values():
            if isinstance(child, dict | list):
                _walk(child, depth + 1)
    elif isinstance(value, list):
        for child in value:
            if isinstance(child, dict | list):
                _walk(child, depth + 1)


def _citation(ann: dict[str, Any]) -> None:
    index = ann.get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        if ann.get("page") is None:
            ann["page"] = index
        del ann["index"]


def _pages(item: dict[str, Any]) -> None:
    for key in ("start_page", "end_page"):
        page = item.get(key)
        if isinstance(page, int) and not isinstance(page, bool):
            item[key] = page + 1
