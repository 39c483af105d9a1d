"""Frozen events the tool executor reports, for renderers and logs (hooks change; events tell).

The values live in :mod:`forge_cli.protocol.loop_events` (every layer can name them); this
module re-exports the executor's share and defines the sink it reports to.
"""

from __future__ import annotations

from collections.abc import Callable

from forge_cli.protocol.loop_events import (
    FailureKind,
    ToolCallBlocked,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
    ToolEvent,
    ToolsDropped,
)

__all__ = [
    "FailureKind",
    "ToolCallBlocked",
    "ToolCallCompleted",
    "ToolCallFailed",
    "ToolCallStarted",
    "ToolEvent",
    "ToolEventSink",
    "ToolsDropped",
]

ToolEventSink = Callable[[ToolEvent], None]
"""Receives events as they happen (must not block)."""
