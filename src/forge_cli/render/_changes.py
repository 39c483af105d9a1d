"""Which items of a snapshot changed since the last one a renderer drew.

Snapshots are copy-on-write (``stream/builder.py``): an item that did not change is the same
object in the next snapshot. While an answer streams, nearly every snapshot differs from the last
in one message only (one more text delta), so the streaming renderers look at the changed
messages only and skip the full pass over the snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence

from forge_cli.protocol.guards import is_message
from forge_cli.protocol.items import OutputItem

__all__ = ["ItemChanges"]


class ItemChanges:
    """Remembers the items of the last snapshot drawn."""

    __slots__ = ("_seen", "changed")

    def __init__(self) -> None:
        self._seen: list[OutputItem] = []
        self.changed: list[int] = []
        """After :meth:`only_messages` returned True: the positions of the changed messages."""

    def only_messages(self, output: Sequence[OutputItem]) -> bool:
        """Whether ``output`` differs from the last snapshot only in messages, with as many items.

        Nothing else can differ then: the other items are the same objects, and whether a
        message is settled depends only on itself and on the item count (``render/settle.py``).
        """
        seen = self._seen
        if len(output) != len(seen):
            return False
        changed = self.changed
        changed.clear()
        for index, item in enumerate(output):
            before = seen[index]
            if item is not before:
                if not (is_message(item) and is_message(before)):
                    return False
                changed.append(index)
        return True

    def remember(self, output: Sequence[OutputItem]) -> None:
        """Note ``output`` as the snapshot drawn last."""
        self._seen = list(output)
