"""The chat translator keeps back the text of a network read's chunks and sends it as one delta.

``ChatStreamTranslator.feed(chunk, hold=True)`` builds no event for a chunk that only carries
text for the part already streaming; ``release()`` gives that text as one delta, and any other
event comes after it. The snapshots must be exactly those of one delta per chunk: checked on
every recorded chat stream and on hostile made-up chunk sequences, for any split of the chunks
into reads, snapshot by snapshot (after each read) and at the end.
"""

from __future__ import annotations

import itertools
import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge_cli.backends.chat import stream as _chat_stream
from forge_cli.backends.chat.stream import ChatStreamTranslator
from forge_cli.protocol.events import StreamEvent
from forge_cli.stream.builder import SnapshotBuilder
from replay.recordings import STREAMS, load  # type: ignore[import-not-found]

TEXT_DELTA = "response.output_text.delta"


def _chunks(name: str) -> list[dict[str, Any]]:
    rec = load(STREAMS / name)
    out: list[dict[str, Any]] = []
    for frame in rec.frames:
        for line in frame.decode().split("\n"):
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                out.append(json.loads(line[5:]))
    return out


CHAT_RECORDINGS = sorted(path.name for path in STREAMS.glob("C*.sse"))


def _text(content: str, **extra: Any) -> dict[str, Any]:
    return {
        "choices": [{"index": 0, "delta": {"content": content, **extra}}],
    }


def _call_piece(arguments: str) -> dict[str, Any]:
    call = {"index": 0, "function": {"arguments": arguments}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


MADE_UP: list[dict[str, Any]] = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}], "model": "a"},
    _text("<think>pondering"),
    _text(" more</think>"),
    _text("Hello"),
    _text(" world", role="assistant"),
    {"choices": [{"index": 0, "delta": {"content": ""}}]},
    {"choices": [{"index": 1, "delta": {"content": "other choice"}}]},
    _text(", still"),
    {"choices": [{"index": 0, "delta": {"refusal": "no"}}]},
    _text(" text after a refusal"),
    {"choices": [{"index": 0, "delta": {"content": " and", "annotations": []}}]},
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a"'}}
                    ]
                },
            }
        ]
    },
    _text(" between call pieces"),
    {
        "choices": [
            {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}
        ]
    },
    {"choices": [{"index": 0, "delta": {"content": " last"}, "finish_reason": None}], "model": "b"},
    {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}},
    {"choices": [{"index": 0, "delta": {"content": "!"}, "finish_reason": "stop"}]},
]


def _fold(
    chunks: list[dict[str, Any]], cuts: list[int], *, hold: bool | str
) -> tuple[list[dict[str, Any]], int]:
    """Snapshots (dumped) after each read and at the end, and how many events were built.

    ``hold``: False feeds each chunk on its own, True feeds each with ``hold=True``, ``"read"``
    takes each read as the chat backend does (``hold_texts`` over the read, ``feed`` for the
    chunks it stops at)."""
    ids = itertools.count()  # the same item ids either way
    with mock.patch.object(_chat_stream, "_new_id", lambda prefix: f"{prefix}_{next(ids)}"):
        return _fold_reads(chunks, cuts, hold=hold)


def _fold_reads(
    chunks: list[dict[str, Any]], cuts: list[int], *, hold: bool | str
) -> tuple[list[dict[str, Any]], int]:
    translator = ChatStreamTranslator("m")
    translator.created_at = 0.0
    builder = SnapshotBuilder()
    built = 0
    snapshots: list[dict[str, Any]] = []

    def apply(events: list[StreamEvent]) -> None:
        nonlocal built
        built += len(events)
        for event in events:
            builder.apply(event)

    apply(translator.start())
    for start, end in itertools.pairwise([0, *sorted(set(cuts)), len(chunks)]):
        events: list[StreamEvent] = []
        read = chunks[start:end]
        if hold == "read":
            index = 0
            while (held := translator.hold_texts(read, index)) < len(read):
                events.extend(translator.feed(read[held], hold=True))
                index = held + 1
        else:
            for chunk in read:
                events.extend(translator.feed(chunk, hold=bool(hold)))
        events.extend(translator.release())
        apply(events)
        snapshots.append(_comparable(builder))
    apply(translator.finish())
    snapshots.append(_comparable(builder))
    return snapshots, built


def _comparable(builder: SnapshotBuilder) -> dict[str, Any]:
    dump: dict[str, Any] = builder.snapshot.model_dump(mode="json")
    return dump


def _same_either_way(chunks: list[dict[str, Any]], cuts: list[int]) -> None:
    one_by_one, _ = _fold(chunks, cuts, hold=False)
    for hold in (True, "read"):
        held, _ = _fold(chunks, cuts, hold=hold)
        assert len(held) == len(one_by_one)
        for index, (a, b) in enumerate(zip(held, one_by_one, strict=True)):
            assert a == b, f"after read {index}, hold={hold!r}"


@pytest.mark.parametrize("name", CHAT_RECORDINGS)
def test_recorded_streams_fold_the_same(name: str) -> None:
    chunks = _chunks(name)
    assert chunks
    for cuts in ([], list(range(len(chunks))), [len(chunks) // 2], [1, 2, len(chunks) - 1]):
        _same_either_way(chunks, cuts)


@settings(max_examples=150, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=len(MADE_UP)), max_size=8),
    drop=st.sets(st.integers(min_value=0, max_value=len(MADE_UP) - 1), max_size=6),
)
def test_made_up_streams_fold_the_same(cuts: list[int], drop: set[int]) -> None:
    chunks = [chunk for index, chunk in enumerate(MADE_UP) if index not in drop]
    _same_either_way(chunks, [cut for cut in cuts if cut <= len(chunks)])


def test_a_read_of_many_tokens_builds_few_events() -> None:
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    chunks += [_text(f" word{index}") for index in range(200)]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    snaps, events = _fold(chunks, [], hold=False)
    assert events > 200
    for hold in (True, "read"):
        held_snaps, held_events = _fold(chunks, [], hold=hold)
        assert held_snaps == snaps
        assert held_events < 15  # start, item and part opened, the first token, the rest, closing


def test_held_text_comes_before_any_later_event() -> None:
    translator = ChatStreamTranslator("m")
    translator.start()
    first = translator.feed(_text("a"), hold=True)  # opens the message and its part
    assert [event.type for event in first][-1] == TEXT_DELTA
    assert translator.feed(_text("b"), hold=True) == []
    assert translator.feed(_text("c"), hold=True) == []
    later = translator.feed({"choices": [{"index": 0, "delta": {"refusal": "no"}}]}, hold=True)
    assert later[0].type == TEXT_DELTA
    assert later[0].data["delta"] == "bc"
    assert translator.release() == []
    translator.feed(_text("d"), hold=True)
    closing = translator.finish()
    assert closing[0].type == TEXT_DELTA
    assert closing[0].data["delta"] == "d"
    done = [event for event in closing if event.type == "response.output_text.done"]
    assert done[0].data["text"] == "abcd"


def test_fail_releases_held_text_first() -> None:
    translator = ChatStreamTranslator("m")
    translator.start()
    translator.feed(_text("a"), hold=True)
    translator.feed(_text("b"), hold=True)
    events = translator.fail("boom", None)
    assert events[0].type == TEXT_DELTA
    assert events[0].data["delta"] == "b"
    assert events[-1].type == "response.failed"


def test_hold_texts_stops_at_what_it_does_not_take() -> None:
    translator = ChatStreamTranslator("m")
    translator.start()
    assert translator.hold_texts([_text("a")], 0) == 0  # no part is streaming yet
    translator.feed(_text("a"), hold=True)
    read: list[dict[str, Any] | None] = [
        _text("b", role="assistant"),
        {**_text("c"), "model": "later", "usage": {"total_tokens": 3}},
        {**_text("d"), "error": {"message": "boom"}},
        _text("e"),
        None,
    ]
    assert translator.hold_texts(read, 0) == 2  # the error chunk is the backend's to handle
    assert (translator.model, translator.usage) == ("later", {"total_tokens": 3})
    assert translator.hold_texts(read, 3) == 4  # and None (the end) stops it too
    assert translator.release()[0].data["delta"] == "bce"
