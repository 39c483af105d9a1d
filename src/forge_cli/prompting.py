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

__all__ = ["RunClock", "on_prompt", "prompt_active", "prompting"]

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


class RunClock:
    """Seconds since it was made, less the time prompts waited for the user meanwhile: the time a
    run of the program took, for budgets such as ``--max-time`` that a person thinking over an
    approval question must not use up. A wait still going counts up to when it started. It
    follows prompts (:func:`on_prompt`) until :meth:`close`."""

    __slots__ = ("_clock", "_remove", "_since", "_started", "_waited")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._started = clock()
        self._waited = 0.0
        self._since: float | None = None
        self._remove = on_prompt(self._pause, self._resume)

    def _pause(self) -> None:
        if self._since is None:
            self._since = self._clock()

    def _resume(self) -> None:
        if self._since is not None:
            self._waited += self._clock() - self._since
            self._since = None

    def elapsed(self) -> float:
        """Seconds of the run so far, the prompts' waits left out."""
        now = self._since if self._since is not None else self._clock()
        return max(0.0, now - self._started - self._waited)

    def close(self) -> None:
        """Stop following prompts (a wait still going ends here)."""
        self._resume()
        self._remove()
