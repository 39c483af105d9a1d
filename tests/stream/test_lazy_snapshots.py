"""Lazy snapshots and batched folding (ADR 0015) show exactly what per-event snapshots show.

The builder builds a snapshot only when it is read; a text delta for a part that already streams
is appended without copying anything. Reading the snapshot after every event, at random moments
or only at the end must give the same values, and a snapshot handed out must never change.
"""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.response import Response
from forge_cli.protocol.text import TextBuffer
from forge_cli.redact import clear_secrets, register_secret
from forge_cli.render.json_renderer import JsonlRenderer
from forge_cli.render.plain import PlainRenderer
from forge_cli.stream import SnapshotBuilder, fold, fold_batches
from forge_cli.stream.secrets import DeltaRedactor
from forge_cli.testing.scripted import load_sse_fixture
from stream.test_builder_properties import event_sequences

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures" / "sse").glob("*.sse"))


def _dump(snapshot: Response) -> str:
    return json.dumps(snapshot.model_dump(mode="json"), sort_keys=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_sequences, st.lists(st.booleans(), min_size=60, max_size=60))
def test_reading_snapshots_at_any_moment_gives_the_per_event_snapshots(
    events: list[StreamEvent], reads: list[bool]
) -> None:
    eager, lazy = SnapshotBuilder(), SnapshotBuilder()
    handed_out: list[tuple[Response, str]] = []
    for event, read in zip(events, reads, strict=False):
        before = eager.snapshot
        expected = eager.feed(event)
        changed = lazy.apply(event)
        assert changed is (expected is not before)
        handed_out.append((expected, _dump(expected)))
        if read:
            assert _dump(lazy.snapshot) == _dump(expected)
    assert _dump(lazy.finish()) == _dump(eager.finish())
    assert lazy.diagnostics.counts == eager.diagnostics.counts
    for snapshot, dumped in handed_out:  # later events never changed a snapshot handed out
        assert _dump(snapshot) == dumped


def test_a_text_delta_does_not_build_a_snapshot_until_one_is_read() -> None:
    builder = SnapshotBuilder()
    events = load_sse_fixture(FIXTURES[0].with_name("openai_web_search.sse"))
    deltas = [i for i, e in enumerate(events) if e.type == "response.output_text.delta"]
    assert len(deltas) >= 2
    for event in events[: deltas[1]]:
        builder.feed(event)
    before = builder.snapshot
    assert builder.apply(events[deltas[1]]) is True
    assert builder._snapshot is before  # not built yet
    after = builder.snapshot
    assert after is not before
    assert after is builder.snapshot  # built once, then cached
    assert after.output_text.endswith(events[deltas[1]].data["delta"])


async def _events(events: Sequence[StreamEvent]) -> AsyncIterator[StreamEvent]:
    for event in events:
        yield event


async def _batches(
    events: Sequence[StreamEvent], size: int
) -> AsyncIterator[Sequence[StreamEvent]]:
    for start in range(0, len(events), size):
        yield events[start : start + size]


@pytest.mark.anyio
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
@pytest.mark.parametrize("size", [1, 3, 1000])
async def test_folding_batches_ends_where_folding_events_ends(path: Path, size: int) -> None:
    events = load_sse_fixture(path)
    per_event = [s async for s in fold(_events(events))]
    batched = [s async for s in fold_batches(_batches(events, size))]
    assert _dump(batched[-1]) == _dump(per_event[-1])
    # at most one per batch, one for the first token, and the final
    assert len(batched) <= -(-len(events) // size) + 2
    if size == 1:
        assert [_dump(s) for s in batched] == [_dump(s) for s in per_event]


def _first_delta(events: list[StreamEvent]) -> int | None:
    """The index of the first delta event, when more events follow it."""
    first = next((i for i, e in enumerate(events) if e.type.endswith(".delta")), None)
    return first if first is not None and first + 1 < len(events) else None


DELTA_FIXTURES = [p for p in FIXTURES if _first_delta(load_sse_fixture(p)) is not None]


def test_most_fixtures_have_a_first_delta_followed_by_more() -> None:
    assert len(DELTA_FIXTURES) >= len(FIXTURES) - 2


@pytest.mark.anyio
@pytest.mark.parametrize("path", DELTA_FIXTURES, ids=lambda p: p.stem)
async def test_the_first_token_is_not_held_for_the_rest_of_its_read(path: Path) -> None:
    """A read that carries the first delta and more yields a snapshot with just the first, so
    the first paint does not wait for the whole read to be folded (and drawn)."""
    events = load_sse_fixture(path)
    first = _first_delta(events)
    assert first is not None
    builder, redactor = SnapshotBuilder(), DeltaRedactor()  # as the fold does (keys held back)
    for event in events[: first + 1]:
        builder.feed(redactor(event))
    batched = [_dump(s) async for s in fold_batches(_batches(events, len(events)))]
    assert batched[0] == _dump(builder.snapshot)
    assert len(batched) >= 2


@pytest.fixture
def key() -> Iterator[str]:
    key = "sk-lazy-0123456789abcdef"
    register_secret(key)
    yield key
    clear_secrets()


@pytest.mark.anyio
async def test_a_key_split_across_batches_never_reaches_a_snapshot(key: str) -> None:
    where = {"item_id": "m1", "output_index": 0, "content_index": 0}
    message = {"type": "message", "id": "m1", "role": "assistant", "content": []}
    pieces = ["key: ", key[:4], key[4:11], key[11:], " end"]
    events = [
        StreamEvent("response.created", {"response": {"id": "r", "status": "in_progress"}}),
        StreamEvent("response.output_item.added", {"output_index": 0, "item": message}),
        StreamEvent("response.content_part.added", {**where, "part": {"type": "output_text"}}),
        *[StreamEvent("response.output_text.delta", {**where, "delta": p}) for p in pieces],
    ]  # cut off: no done events, the held text is flushed at the end
    for size in (1, 2, 4):
        texts = [s.output_text async for s in fold_batches(_batches(events, size))]
        assert texts
        assert all(key[:4] not in text for text in texts)
        assert texts[-1] == "key: *** end"


def _render(renderer: PlainRenderer | JsonlRenderer, snapshots: list[Response]) -> None:
    for snapshot in snapshots:
        renderer.on_snapshot(snapshot)
    renderer.finish(snapshots[-1] if snapshots else None)


@pytest.mark.anyio
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
async def test_plain_and_jsonl_text_is_the_same_per_event_or_per_batch(path: Path) -> None:
    events = load_sse_fixture(path)
    outputs: dict[str, list[str]] = {"plain": [], "jsonl": []}
    for source in (fold(_events(events)), fold_batches(_batches(events, 4))):
        snapshots = [s async for s in source]
        plain_out, jsonl_out = io.StringIO(), io.StringIO()
        _render(PlainRenderer(plain_out, io.StringIO(), clock=lambda: 0.0), snapshots)
        _render(JsonlRenderer(jsonl_out, clock=lambda: 0.0), snapshots)
        outputs["plain"].append(plain_out.getvalue())
        lines = [json.loads(line) for line in jsonl_out.getvalue().splitlines()]
        deltas = "".join(x["payload"]["delta"] for x in lines if x["type"] == "text.delta")
        outputs["jsonl"].append(deltas + json.dumps(lines[-1], sort_keys=True))
    assert outputs["plain"][0] == outputs["plain"][1]
    assert outputs["jsonl"][0] == outputs["jsonl"][1]


@given(st.lists(st.text(max_size=4), max_size=12), st.data())
def test_a_view_reads_its_length_and_any_suffix_without_joining(
    fragments: list[str], data: st.DataObject
) -> None:
    initial = data.draw(st.sampled_from(["", "seed"]))
    buffer = TextBuffer(initial)
    views = [(buffer.view(), initial)]
    for fragment in fragments:
        buffer.append(fragment)
        views.append((buffer.view(), views[-1][1] + fragment))
    for view, text in data.draw(st.permutations(views)):  # suffixes first, then whole texts
        start = data.draw(st.integers(0, len(text) + 2))
        assert view.length == len(text)
        assert view.text_from(start) == text[start:]
        if data.draw(st.booleans()):
            assert view.text == text
    for i, (view, _) in enumerate(views):
        assert all(later.extends(view) for later, _ in views[i:])
        assert not TextBuffer().view().extends(view)


@pytest.mark.anyio
async def test_a_key_split_across_deltas_under_an_older_event_name_is_held_back(key: str) -> None:
    where = {"item_id": "m1", "output_index": 0, "content_index": 0}
    message = {"type": "message", "id": "m1", "role": "assistant", "content": []}
    pieces = ["key: ", key[:6], key[6:], " end"]
    events = [
        StreamEvent("response.output_item.added", {"output_index": 0, "item": message}),
        *[StreamEvent("response.text.delta", {**where, "delta": p}) for p in pieces],
    ]
    texts = [s.output_text async for s in fold(_events(events))]
    assert all(key[:6] not in text for text in texts)
    assert texts[-1] == "key: *** end"
