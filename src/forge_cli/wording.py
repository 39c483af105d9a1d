"""Small helpers for the words Forge prints."""

from __future__ import annotations

__all__ = ["plural", "shorten"]


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 turn``, ``2 turns``, ``0 files`` (``plural_form`` for irregular words)."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count} {word}"


def shorten(text: str, limit: int, ellipsis: str = "…") -> str:
    """``text`` in at most ``limit`` characters, cut at a word boundary when one is near the end
    (within the last third), with ``ellipsis`` when anything was cut."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(ellipsis))
    cut = text[:room]
    space = cut.rfind(" ")
    if space >= room * 2 // 3 and not text[room : room + 1].isspace():
        cut = cut[:space]
    return cut.rstrip() + ellipsis
