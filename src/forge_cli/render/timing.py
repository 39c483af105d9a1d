"""Elapsed time per item, measured by the renderer with an injectable clock.

Servers do not time their tool calls, so the renderer notes when it first saw each item and
when it first saw it finished. The clock is a parameter so tests are deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Clock", "ItemClock", "format_elapsed"]

Clock = Callable[[], float]
"""A monotonic clock in seconds (``time.monotonic`` in production)."""


class ItemClock:
    """First-seen and first-seen-done times per item key."""

    __slots__ = ("_clock", "_done", "_end", "_first_output", "_seen", "started")

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self.started = clock()
        self._seen: dict[str, float] = {}
        self._done: dict[str, float] = {}
        self._first_output: float | None = None
        self._end: float | None = None

    def now(self) -> float:
        """The clock's current reading."""
        return self._clock()

    def observe(self, key: str, done: bool, now: float) -> None:
        """Note that item ``key`` was seen at ``now`` (and whether it was finished)."""
        self._seen.setdefault(key, now)
        if self._first_output is None:
            self._first_output = now
        if done:
            self._done.setdefault(key, now)

    def running(self, key: str) -> bool:
        """Whether item ``key`` was seen and its clock is still counting (its elapsed changes)."""
        return self._end is None and key in self._seen and key not in self._done

    def close(self, now: float) -> None:
        """The answer ended: unfinished items stop their clocks here."""
        if self._end is None:
            self._end = now
        for key in self._seen:
            self._done.setdefault(key, now)

    def elapsed(self, key: str) -> float:
        """Seconds item ``key`` has been running (or ran), 0 when never seen."""
        start = self._seen.get(key)
        if start is None:
            return 0.0
        end = self._done.get(key)
        return max(0.0, (end if end is not None else self._clock()) - start)

    def total(self) -> float:
        """Seconds from the renderer's start to the end of the answer (or now)."""
        end = self._end if self._end is not None else self._clock()
        return max(0.0, end - self.started)

    def first_output(self) -> float | None:
        """Seconds until the first output item appeared."""
        return None if self._first_output is None else self._first_output - self.started


def format_elapsed(seconds: float) -> str:
    """``0.4s``, ``12.3s``, ``2m05s``."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"
