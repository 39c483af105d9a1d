"""Fold an event stream into snapshots: the one fold every answer goes through.

:func:`fold` is the async convenience over :class:`SnapshotBuilder`; :func:`raise_for_failure`
turns a stream that reported a failure into :class:`StreamError` (and one that was cut short or
carried no valid event into :class:`ProtocolError`). The plain backend responder
(``agent/turn.py``) and the agent drivers (``agent/drivers/base.py``) both use these two.
(The module is not called ``fold``: a submodule named like the function it exports would
replace the package attribute ``forge_cli.stream.fold`` with itself when imported directly.)
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Sequence

from forge_cli.errors import ProtocolError, StreamError
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.response import Response
from forge_cli.stream.builder import SnapshotBuilder
from forge_cli.stream.held import TEXT_DELTA, HeldText
from forge_cli.stream.secrets import DeltaRedactor

__all__ = ["fold", "fold_batches", "raise_for_failure"]


async def fold(
    events: AsyncIterable[StreamEvent], builder: SnapshotBuilder | None = None
) -> AsyncIterator[Response]:
    """Yield the snapshot after each event that changed it, then the finished snapshot.

    Pass your own ``builder`` to inspect ``terminal``, ``error`` and ``diagnostics`` afterwards,
    or to keep the partial snapshot when the event source raises mid-stream.
    """
    builder = builder if builder is not None else SnapshotBuilder()
    last: Response | None = None
    redactor = DeltaRedactor()  # keys echoed by a server never reach a snapshot, even split
    try:
        async for event in events:
            if builder.apply(redactor(event)):  # unchanged by this event: nothing new to show
                last = builder.snapshot
                yield last
    except Exception:
        held = _feed_held(builder, redactor)
        if held is not None and held is not last:  # a failed stream keeps the text it carried
            yield held
        raise
    async for snapshot in _close(builder, redactor, last):
        yield snapshot


async def fold_batches(
    batches: AsyncIterable[Sequence[StreamEvent]], builder: SnapshotBuilder | None = None
) -> AsyncIterator[Response]:
    """Like :func:`fold`, for events that arrive in batches (those one network read carried).

    One snapshot is yielded per batch that changed anything: the state after its last event.
    The events of a batch arrived together, so no state a reader could have seen is skipped,
    and the snapshot is built once per batch rather than once per event (ADR 0015).
    """
    builder = builder if builder is not None else SnapshotBuilder()
    last: Response | None = None
    redactor = DeltaRedactor()
    apply = builder.apply
    streaming = False  # no delta seen yet: the first one is shown on its own, at once
    try:
        async for batch in batches:
            changed = False
            rest: Sequence[StreamEvent] = batch
            if not streaming:
                for position, event in enumerate(batch):
                    changed = apply(redactor(event)) or changed
                    if event.type.endswith(".delta"):
                        streaming = True
                        rest = batch[position + 1 :]
                        break
                else:
                    rest = ()
                if streaming and changed and rest:
                    # The read that brought the first token often brings many more (a server
                    # that thought first, then streamed fast): its first token is drawn before
                    # the rest of the read is folded, so the first paint does not wait for it.
                    last = builder.snapshot
                    yield last
                    changed = False
            if _apply_merged(builder, redactor, rest):
                changed = True
            if changed:
                last = builder.snapshot
                yield last
    except Exception:
        held = _feed_held(builder, redactor)
        if held is not None and held is not last:
            yield held
        raise
    async for snapshot in _close(builder, redactor, last):
        yield snapshot


def _apply_merged(
    builder: SnapshotBuilder, redactor: DeltaRedactor, events: Sequence[StreamEvent]
) -> bool:
    """Apply ``events`` (that arrived together), each run of text deltas for one part as one.

    Only the snapshot after the batch is read, so a run's deltas joined give the same state as
    one by one: the same text in the part's buffer, the same text held back by the key redactor
    (it redacts what it was given plus what it held, and holds back the same possible start of
    a key). Only deltas the builder appends to a streaming part (``appends_text``) are joined;
    any other is applied on its own (the first of a part, one for an unknown item, one after
    the end: each is counted or recorded as it would be). Deltas with a ``sequence_number`` are
    redacted one by one, as the builder tells a repeated one by its redacted text: their numbers
    are recorded as they join the run (``take_sequence``), and a repeat is applied on its own,
    which reports it. Whether anything changed.
    """
    apply = builder.apply
    changed = False
    run = _Run()
    for event in events:
        data = event.data
        if event.type == TEXT_DELTA:
            delta = data.get("delta")
            if isinstance(delta, str):
                key = (data.get("item_id"), data.get("output_index"), data.get("content_index"))
                sequenced = "sequence_number" in data
                if not (run.first is not None and key == run.where and sequenced == run.redacted):
                    changed = run.apply(builder, redactor) or changed
                    if not builder.appends_text(data):
                        changed = apply(redactor(event)) or changed
                        continue
                    run.where, run.redacted = key, sequenced
                if sequenced:
                    event = redactor(event)
                    if not builder.take_sequence(event.data):
                        changed = run.apply(builder, redactor) or changed
                        changed = apply(event) or changed  # a repeat: reported by the builder
                        continue
                    delta = event.data["delta"]
                run.add(event, delta)
                continue
        changed = run.apply(builder, redactor) or changed
        changed = apply(redactor(event)) or changed
    return run.apply(builder, redactor) or changed


class _Run:
    """Text deltas for one part that arrived one after another, to be applied as one: held in a
    :class:`HeldText` with the first delta's fields."""

    __slots__ = ("first", "held", "redacted", "where")

    def __init__(self) -> None:
        self.first: StreamEvent | None = None
        self.held = HeldText()
        self.where: tuple[object, object, object] | None = None
        self.redacted = False
        """The pieces are redacted already and their sequence numbers recorded."""

    def add(self, event: StreamEvent, delta: str) -> None:
        """Hold ``delta``, the text of ``event`` (as redacted when the run is)."""
        if self.first is None:
            self.first = event
            data = event.data
            if self.redacted:  # its number is recorded: the joined delta carries none
                data = {k: v for k, v in data.items() if k != "sequence_number"}
            self.held.fields = data
        self.held.pieces.append(delta)

    def apply(self, builder: SnapshotBuilder, redactor: DeltaRedactor) -> bool:
        """Apply the run (if any) as one delta and start a new one; whether it changed."""
        first, held = self.first, self.held
        if first is None:
            return False
        self.first = None
        more = len(held) - 1  # counted as the events they were
        if not more and not self.redacted:
            held.pieces = []
            return builder.apply(redactor(first))
        merged = held.release()
        if merged is None:  # not so: the run holds its first delta's text at least
            return False
        if not self.redacted:
            merged = redactor(merged)
        builder.diagnostics.events += more
        builder.valid_events += more
        return builder.apply(merged)


async def _close(
    builder: SnapshotBuilder, redactor: DeltaRedactor, last: Response | None
) -> AsyncIterator[Response]:
    held = _feed_held(builder, redactor)  # a stream cut before its full text keeps it too
    last = held if held is not None else last
    final = builder.finish()
    if final is not last:
        yield final


def _feed_held(builder: SnapshotBuilder, redactor: DeltaRedactor) -> Response | None:
    changed = False
    for event in redactor.flush():
        changed = builder.apply(event) or changed
    return builder.snapshot if changed else None


def raise_for_failure(builder: SnapshotBuilder) -> None:
    """Raise :class:`StreamError` when the stream ended with ``error`` or ``response.failed``,
    and :class:`ProtocolError` when it carried no valid event or ended without its terminal
    event (exit 1 on every API; the partial answer stays with the caller).

    A run failure goes up to the user; the server's own error code is kept on the exception.
    """
    if builder.terminal not in ("failed", "error"):
        problem = builder.end_problem()
        if problem is not None:
            raise ProtocolError(problem)
        return
    error = builder.error
    message = (
        error.message if error is not None and error.message else "the server reported a failure"
    )
    raise StreamError(message, code=error.code if error is not None else None)
