"""One terminal, two writers: live displays and prompts that need an answer.

A prompt that waits for the user (tool approval, a confirmation) runs inside :func:`prompting`;
a live display (the rich renderer's status region) registers with :func:`on_prompt` and stops
drawing while a prompt is up, so the question stays fully visible and what the user types lands
after it. Everything here runs on the event-loop thread (the approver enters :func:`prompting`
before it hands the blocking read to a worker thread).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["on_prompt", "prompt_active", "prompting"]

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
