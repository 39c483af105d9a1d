"""What the SnapshotBuilder tolerated: counts of odd events, for ``--debug`` output."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["StreamDiagnostics"]

_MAX_NOTES = 50
_log = logging.getLogger(__name__)


@dataclass
class StreamDiagnostics:
    """Counters of events the builder could not apply as sent, plus a few sample notes.

    Kinds: ``unknown_event`` (a type we do not know), ``invalid`` (broken JSON or a non-object),
    ``orphan`` (an event for an item that was never added; the item is synthesised when possible),
    ``duplicate`` (a repeated sequence number with the same payload), ``malformed`` (a known event
    missing required fields), ``late`` (an event after the stream's terminal event).
    """

    counts: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    events: int = 0

    def record(self, kind: str, note: str) -> None:
        """Count one tolerated problem and keep a short note about it."""
        self.counts[kind] += 1
        _log.debug("stream: tolerated %s: %s", kind, note)  # shown with --debug
        if len(self.notes) < _MAX_NOTES:
            self.notes.append(f"{kind}: {note}")

    @property
    def problems(self) -> int:
        """How many events were tolerated rather than applied as sent."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """One line for debug output."""
        if not self.counts:
            return f"{self.events} events, no problems"
        parts = ", ".join(f"{kind}={n}" for kind, n in sorted(self.counts.items()))
        return f"{self.events} events; tolerated: {parts}"
