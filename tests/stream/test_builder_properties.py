"""Property: no sequence of events (shuffled, dropped, duplicated, unknown, garbage) breaks the
builder, and every snapshot it hands out can be dumped to JSON."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forge_cli.protocol import StreamEvent
from forge_cli.stream import SnapshotBuilder
from forge_cli.testing.scripted import load_sse_fixture

FIXTURE_EVENTS = [
    event
    for path in sorted((Path(__file__).parent.parent / "fixtures" / "sse").glob("*.sse"))
    for event in load_sse_fixture(path)
]
EVENT_TYPES = [
    *sorted({event.type for event in FIXTURE_EVENTS}),
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.annotation.added",
    "response.function_call_arguments.delta",
    "response.code_interpreter_call_code.delta",
    "response.reasoning_text.delta",
    "response.mystery_call.pondering",
    "response.file_reader_call.progress",
    "totally.unknown",
    "forge.invalid",
    "done",
]

json_scalars = (
    st.none() | st.booleans() | st.integers(-3, 5) | st.floats(-2, 200) | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "text", "id", "item", "part", "x"]), children, max_size=3
        )
    ),
    max_leaves=8,
)
KEYS = [
    "output_index",
    "content_index",
    "summary_index",
    "item_id",
    "delta",
    "item",
    "part",
    "annotation",
    "response",
    "text",
    "arguments",
    "progress",
    "trace",
    "sequence_number",
    "message",
    "code",
    "error",
    "output",
    "object",
    "id",
]
garbage_events = st.builds(
    StreamEvent,
    st.sampled_from(EVENT_TYPES),
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=5),
)
real_events = st.sampled_from(FIXTURE_EVENTS)
event_sequences = st.lists(real_events | garbage_events, max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_sequences)
def test_builder_never_raises(events: list[StreamEvent]) -> None:
    builder = SnapshotBuilder()
    for event in events:
        snapshot = builder.feed(event)
        json.dumps(snapshot.to_wire())
    final = builder.finish()
    json.dumps(final.to_wire())
    assert builder.diagnostics.events == len(events)


@settings(max_examples=100, deadline=None)
@given(st.permutations(FIXTURE_EVENTS[:40]), st.data())
def test_shuffled_dropped_and_duplicated_real_events(
    events: list[StreamEvent], data: st.DataObject
) -> None:
    keep = data.draw(st.lists(st.booleans(), min_size=len(events), max_size=len(events)))
    repeat = data.draw(st.lists(st.booleans(), min_size=len(events), max_size=len(events)))
    builder = SnapshotBuilder()
    for event, kept, twice in zip(events, keep, repeat, strict=True):
        if kept:
            builder.feed(event)
            if twice:
                builder.feed(event)
    json.dumps(builder.finish().to_wire())
