"""A scripted backend: replays queued event scripts and records the requests it was sent.

It fails loudly: a request with no script left raises, and :meth:`ScriptedBackend.assert_consumed`
raises when scripts were left unused, so a test cannot pass by accident.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable, Sequence
from pathlib import Path
from typing import Any

from forge_cli.backends.base import ListModels, one_event_per_batch
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request
from forge_cli.stream.sse import iter_sse_events

__all__ = ["ScriptExhaustedError", "ScriptedBackend", "load_sse_fixture"]

ScriptStep = StreamEvent | BaseException


class ScriptExhaustedError(AssertionError):
    """The backend was asked for more responses than it was scripted with."""


class ScriptedBackend:
    """A :class:`~forge_cli.backends.base.Backend` that replays scripts, one per request.

    A script is a sequence of :class:`StreamEvent` (or raw dicts with a ``type``); an exception in
    the script is raised at that point, to simulate a transport failure mid-stream.
    """

    name = "scripted"
    runs_hosted_tools = True
    stores_responses = False
    list_models: ListModels | None = None

    def __init__(self, scripts: Iterable[Sequence[StreamEvent | dict[str, Any] | BaseException]]):
        self._scripts: list[list[ScriptStep]] = [
            [_as_step(step) for step in script] for script in scripts
        ]
        self.requests: list[Request] = []
        self.closed = False

    def add_script(self, script: Sequence[StreamEvent | dict[str, Any] | BaseException]) -> None:
        """Queue one more script."""
        self._scripts.append([_as_step(step) for step in script])

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """Replay the next script."""
        self.requests.append(request)
        if not self._scripts:
            raise ScriptExhaustedError(
                f"ScriptedBackend got request #{len(self.requests)} but has no script left"
            )
        for step in self._scripts.pop(0):
            if isinstance(step, BaseException):
                raise step
            yield step

    def stream_batches(self, request: Request) -> AsyncGenerator[list[StreamEvent], None]:
        """The next script, one event per batch (folded exactly as event by event); a subclass
        that overrides :meth:`stream` gets its events here too."""
        return one_event_per_batch(self.stream(request))

    async def aclose(self) -> None:
        """Mark closed."""
        self.closed = True

    @property
    def remaining(self) -> int:
        """Scripts not yet replayed."""
        return len(self._scripts)

    def assert_consumed(self) -> None:
        """Raise when scripts were left unused."""
        if self._scripts:
            raise AssertionError(f"ScriptedBackend has {len(self._scripts)} unused script(s)")


def _as_step(step: StreamEvent | dict[str, Any] | BaseException) -> ScriptStep:
    if isinstance(step, StreamEvent | BaseException):
        return step
    return StreamEvent(str(step.get("type", "")), dict(step))


def load_sse_fixture(path: str | Path) -> list[StreamEvent]:
    """The events of an SSE text file (as a server would send it)."""
    return list(iter_sse_events([Path(path).read_bytes()]))
