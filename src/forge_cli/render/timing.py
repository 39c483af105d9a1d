"""Elapsed time per item, measured by the renderer with an injectable clock.

Servers do not time their tool calls, so the renderer notes when it first saw each item and
when it first saw it finished. The clock is a parameter so tests are deterministic.

Time spent waiting for the user (a tool approval question, :mod:`forge_cli.prompting`) is not
the answer's: between :meth:`ItemClock.pause` and :meth:`ItemClock.resume` the clock stands
still, so no item's elapsed time and no total includes the wait; :meth:`ItemClock.waited` says
how long it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from forge_cli.prompting import PausableClock, on_prompt

__all__ = ["Clock", "ItemClock", "format_elapsed"]

Clock = Callable[[], float]
"""A monotonic clock in seconds (``time.monotonic`` in production)."""


class ItemClock:
    """First-seen and first-seen-done times per item key."""

    __slots__ = ("_done", "_end", "_first_output", "_seen", "_time", "started")

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._time = PausableClock(clock)
        self.started = self._time.started
        self._seen: dict[str, float] = {}
        self._done: dict[str, float] = {}
        self._first_output: float | None = None
        self._end: float | None = None

    def now(self) -> float:
        """The current reading: the clock's, less the time spent paused (standing still while
        paused)."""
        return self._time.now()

    def pause(self) -> None:
        """The user is being asked something: stop counting until :meth:`resume` (not once the
        answer ended)."""
        if self._end is None:
            self._time.pause()

    def resume(self) -> None:
        """The user answered: count again, the wait left out of every reading."""
        self._time.resume()

    def follow_prompts(self) -> Callable[[], None]:
        """Pause while a prompt waits for the user (:func:`forge_cli.prompting.prompting`);
        returns the function that stops following them (call it when the answer ends)."""
        return on_prompt(self.pause, self.resume)

    def waited(self) -> float:
        """Seconds spent paused (waiting for the user), up to now or the end of the answer."""
        return self._time.waited()

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
        """The answer ended: unfinished items stop their clocks here (a wait still going on ends
        here too)."""
        self.resume()
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
        return max(0.0, (end if end is not None else self.now()) - start)

    def total(self) -> float:
        """Seconds from the renderer's start to the end of the answer (or now), waits for the
        user left out."""
        end = self._end if self._end is not None else self.now()
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
