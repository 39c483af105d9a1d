"""Small helpers for the words Forge prints."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 turn``, ``2 turns``, ``0 files`` (``plural_form`` for irregular words)."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count} {word}"
