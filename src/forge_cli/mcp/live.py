"""Live state of the MCP calls of a session: progress, messages, durations (by call id).

MCP tools write here as progress notifications arrive; the presenter reads it to draw each call's
progress bar and trace; :meth:`LiveCalls.wait_changed` wakes whoever redraws.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

__all__ = ["LiveCall", "LiveCalls"]

_TRACE_LINES = 20


@dataclass
class LiveCall:
    """One MCP call as it runs."""

    server: str
    tool: str
    started: float = field(default_factory=time.monotonic)
    progress: float | None = None
    trace: list[str] = field(default_factory=list)
    duration_ms: int | None = None


class LiveCalls:
    """Calls by ``call_id``, and an event set whenever one changes."""

    def __init__(self) -> None:
        self._calls: dict[str, LiveCall] = {}
        self._changed = asyncio.Event()

    def get(self, call_id: str) -> LiveCall | None:
        """The call ``call_id``, if an MCP tool ran it."""
        return self._calls.get(call_id)

    def start(self, call_id: str, server: str, tool: str) -> None:
        """A call began."""
        self._calls[call_id] = LiveCall(server, tool)
        self._changed.set()

    def progress(
        self, call_id: str, value: float, total: float | None, message: str | None
    ) -> None:
        """A progress notification: ``value`` of ``total`` (no total: only the message shows)."""
        call = self._calls.get(call_id)
        if call is None:
            return
        if total:
            call.progress = min(1.0, max(0.0, value / total))
        if message:
            stamp = time.strftime("%H:%M:%S")
            call.trace = [*call.trace[-(_TRACE_LINES - 1) :], f"[{stamp}] {message}"]
        self._changed.set()

    def finish(self, call_id: str) -> None:
        """A call ended (whatever the outcome)."""
        call = self._calls.get(call_id)
        if call is not None and call.duration_ms is None:
            call.duration_ms = round((time.monotonic() - call.started) * 1000)
        self._changed.set()

    async def wait_changed(self) -> None:
        """Return after the next change (or at once if one happened since the last wait)."""
        await self._changed.wait()
        self._changed.clear()
