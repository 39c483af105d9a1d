"""The text of one network read for one content part, held and given on as one delta (ADR-0026).

This is the one place the text of a read is joined. The chat translator holds the text of a
read's text-only chunks in one (it builds no event per token), and the batched fold holds a
read's run of text deltas for one part in one (a Responses stream has an event per token): either
way the builder appends a read's text once.
"""

from __future__ import annotations

from typing import Any

from forge_cli.protocol.events import StreamEvent

__all__ = ["TEXT_DELTA", "HeldText"]

TEXT_DELTA = "response.output_text.delta"


class HeldText:
    """Pieces of text for one content part, given on as one ``output_text.delta``.

    ``fields`` are the fields of that delta (where it goes: item id, output and content index,
    and any others to keep), its ``delta`` replaced by the joined pieces.
    """

    __slots__ = ("fields", "pieces")

    def __init__(self, fields: dict[str, Any] | None = None) -> None:
        self.fields: dict[str, Any] = fields if fields is not None else {}
        self.pieces: list[str] = []

    def __len__(self) -> int:
        """How many pieces are held."""
        return len(self.pieces)

    def release(self) -> StreamEvent | None:
        """The held pieces as one delta (``None`` when none are held); holds nothing after."""
        pieces = self.pieces
        if not pieces:
            return None
        self.pieces = []
        return self.delta(pieces[0] if len(pieces) == 1 else "".join(pieces))

    def delta(self, text: str) -> StreamEvent:
        """The delta of ``text`` for this part (the held pieces stay as they are)."""
        return StreamEvent(TEXT_DELTA, {**self.fields, "delta": text})
