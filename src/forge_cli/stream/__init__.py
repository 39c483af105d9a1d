"""From bytes to snapshots: the SSE reader and the SnapshotBuilder (exports resolve lazily)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.stream.builder import SnapshotBuilder
    from forge_cli.stream.diagnostics import StreamDiagnostics
    from forge_cli.stream.folding import fold, fold_batches, raise_for_failure
    from forge_cli.stream.sse import SSEDecoder, aiter_sse_events, iter_sse_events

__all__ = [
    "SSEDecoder",
    "SnapshotBuilder",
    "StreamDiagnostics",
    "aiter_sse_events",
    "fold",
    "fold_batches",
    "iter_sse_events",
    "raise_for_failure",
]

_WHERE = {
    "SSEDecoder": "sse",
    "SnapshotBuilder": "builder",
    "StreamDiagnostics": "diagnostics",
    "aiter_sse_events": "sse",
    "fold": "folding",
    "fold_batches": "folding",
    "iter_sse_events": "sse",
    "raise_for_failure": "folding",
}

__getattr__ = lazy_exports(__name__, _WHERE)
