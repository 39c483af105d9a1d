"""Fold an event stream into snapshots (the async convenience over :class:`SnapshotBuilder`)."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.response import Response
from forge_cli.stream.builder import SnapshotBuilder

__all__ = ["fold"]


async def fold(
    events: AsyncIterable[StreamEvent], builder: SnapshotBuilder | None = None
) -> AsyncIterator[Response]:
    """Yield the snapshot after each event that changed it, then the finished snapshot.

    Pass your own ``builder`` to inspect ``terminal``, ``error`` and ``diagnostics`` afterwards,
    or to keep the partial snapshot when the event source raises mid-stream.
    """
    builder = builder if builder is not None else SnapshotBuilder()
    last: Response | None = None
    async for event in events:
        snapshot = builder.feed(event)
        if snapshot is not last:
            last = snapshot
            yield snapshot
    final = builder.finish()
    if final is not last:
        yield final
