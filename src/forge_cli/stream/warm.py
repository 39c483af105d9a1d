"""Build, ahead of time, what folding the first token builds on first use.

The protocol models build their pydantic validators on first use (``defer_build``, start-up
time), and :func:`forge_cli.protocol.parse.parse_item` builds its type adapters on first use:
together ~50 ms that the first streamed token would otherwise wait for, after its bytes are
here. ``forge ask`` runs :func:`warm_up_fold` on the warm-up thread while its request is in
flight (``forge_cli.startup.StartUp``, benchmarks/bench_peers.py "first paint").
"""

from __future__ import annotations

from forge_cli.protocol.events import StreamEvent
from forge_cli.stream.builder import SnapshotBuilder

__all__ = ["warm_up_fold"]

_ITEM = {"id": "msg_warm", "type": "message", "role": "assistant", "status": "in_progress"}
_WHERE = {"item_id": "msg_warm", "output_index": 0, "content_index": 0}
_EVENTS = (
    StreamEvent("response.created", {"response": {"id": "resp_warm", "status": "in_progress"}}),
    StreamEvent(
        "response.output_item.added", {"output_index": 0, "item": {**_ITEM, "content": []}}
    ),
    StreamEvent(
        "response.content_part.added",
        {**_WHERE, "part": {"type": "output_text", "text": "", "annotations": []}},
    ),
    StreamEvent("response.output_text.delta", {**_WHERE, "delta": "warm"}),
)


def warm_up_fold() -> None:
    """Fold the start of a message (created, item and part added, one delta) and read it.

    A private builder: nothing of it is kept, no shared state changes. What stays is what
    pydantic and :func:`functools.cache` keep: the built validators and parse adapters.
    """
    builder = SnapshotBuilder()
    for event in _EVENTS:
        builder.apply(event)
    _ = builder.snapshot.output[0]
