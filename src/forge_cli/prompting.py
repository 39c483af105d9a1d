"""One terminal, two writers: live displays and prompts that need an answer.

A prompt that waits for the user (tool approval, a confirmation) runs inside :func:`prompting`;
a live display (the rich renderer's status region) registers with :func:`on_prompt` and stops
drawing while a prompt is up, so the question stays fully visible and what the user types lands
after it. Everything here runs on the event-loop thread (the approver enters :func:`prompting`
before it hands the blocking read to a worker thread).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["PausableClock", "on_prompt", "prompt_active", "prompting"]

_Listener = tuple[Callable[[], None], Callable[[], None]]
_listeners: list[_Listener] = []
_depth = 0


def on_prompt(pause: Callable[[], None], resume: Callable[[], None]) -> Callable[[], None]:
    """Call ``pause`` when a prompt starts and ``resume`` when it ends; returns the remover."""
    entry = (pause, resume)
    _listeners.append(entry)
    if _depth:
        pause()

    def remove() -> None:
        if entry in _listeners:
            _listeners.remove(entry)

    return remove


def prompt_active() -> bool:
    """Whether a prompt is waiting for the user right now."""
    return _depth > 0


@contextmanager
def prompting() -> Iterator[None]:
    """Hold the terminal for a prompt: live displays pause until the block ends."""
    global _depth
    if _depth == 0:
        for pause, _ in list(_listeners):
            pause()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            for _, resume in list(_listeners):
                resume()


class PausableClock:
    """A clock that stands still while paused: every reading leaves the pauses out.

    What an answer is timed with (``render.timing.ItemClock``) and what the agent loop measures
    its time budget with: a person thinking over an approval question uses up neither. Paused
    while a prompt waits for the user once :meth:`follow_prompts` was called."""

    __slots__ = ("_clock", "_paused_at", "_waited", "started")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._waited = 0.0
        self._paused_at: float | None = None
        self.started = clock()

    def now(self) -> float:
        """The current reading: the clock's, less the time spent paused (standing still while
        paused)."""
        raw = self._paused_at if self._paused_at is not None else self._clock()
        return raw - self._waited

    def elapsed(self) -> float:
        """Seconds since the clock was made, the pauses left out."""
        return max(0.0, self.now() - self.started)

    def pause(self) -> None:
        """Stop counting until :meth:`resume`."""
        if self._paused_at is None:
            self._paused_at = self._clock()

    def resume(self) -> None:
        """Count again, the pause left out of every reading."""
        if self._paused_at is not None:
            self._waited += self._clock() - self._paused_at
            self._paused_at = None

    def waited(self) -> float:
        """Seconds spent paused, a pause still going counted up to now."""
        ongoing = 0.0
        if self._paused_at is not None:
            ongoing = max(0.0, self._clock() - self._paused_at)
        return self._waited + ongoing

    def follow_prompts(self) -> Callable[[], None]:
        """Pause while a prompt waits for the user (:func:`prompting`); returns the function
        that stops following them."""
        return on_prompt(self.pause, self.resume)
