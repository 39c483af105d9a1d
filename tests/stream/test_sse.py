"""The SSE reader: framing, line ends, comments, end markers, broken JSON."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forge_cli import jsonsafe
from forge_cli.stream.sse import INVALID_EVENT, SSEDecoder, iter_sse_events


def _events(raw: bytes, chunk: int | None = None) -> list[tuple[str, dict[str, object]]]:
    chunks = [raw] if chunk is None else [raw[i : i + chunk] for i in range(0, len(raw), chunk)]
    return [(event.type, event.data) for event in iter_sse_events(chunks)]


def test_type_from_data_when_no_event_line() -> None:
    assert _events(b'data: {"type": "response.created", "x": 1}\n\n') == [
        ("response.created", {"type": "response.created", "x": 1})
    ]


def test_event_line_wins_and_supplies_missing_type() -> None:
    raw = b'event: response.output_text.delta\ndata: {"delta": "hi"}\n\n'
    assert _events(raw) == [("response.output_text.delta", {"delta": "hi"})]


def test_multiline_data_is_joined_with_newlines() -> None:
    raw = b'data: {"type": "a",\ndata:  "v": "x"}\n\n'
    assert _events(raw) == [("a", {"type": "a", "v": "x"})]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("chunk", [None, 1, 3])
def test_line_endings_and_any_chunking(newline: bytes, chunk: int | None) -> None:
    raw = (b'event: e1\ndata: {"k": 1}\n\n: comment\n\ndata: {"type": "e2"}\n\n').replace(
        b"\n", newline
    )
    assert _events(raw, chunk) == [("e1", {"k": 1}), ("e2", {"type": "e2"})]


def test_comments_and_keepalives_are_ignored() -> None:
    assert _events(b": ping\n\n:\n\nid: 7\nretry: 100\n\n") == []


def test_done_marker_stops_the_stream() -> None:
    raw = b'data: {"type": "a"}\n\ndata: [DONE]\n\ndata: {"type": "after"}\n\n'
    assert [t for t, _ in _events(raw)] == ["a", "done"]


def test_knowledge_forge_event_done_stops_the_stream() -> None:
    raw = b'event: done\ndata: {}\n\ndata: {"type": "after"}\n\n'
    decoder = SSEDecoder()
    assert [e.type for e in decoder.feed(raw)] == ["done"]
    assert decoder.done


def test_broken_json_becomes_an_invalid_event_not_an_exception() -> None:
    events = _events(b"event: x\ndata: {not json\n\ndata: [1, 2]\n\n")
    assert [t for t, _ in events] == [INVALID_EVENT, INVALID_EVENT]
    assert events[0][1]["raw"] == "{not json"


def test_http_style_error_object_midstream_becomes_an_error_event() -> None:
    events = _events(b'data: {"error": {"message": "boom", "code": "overloaded"}}\n\n')
    assert events == [
        ("error", {"type": "error", "message": "boom", "code": "overloaded", "param": None})
    ]


def test_unterminated_last_frame_is_flushed() -> None:
    assert _events(b'data: {"type": "last"}') == [("last", {"type": "last"})]


def test_invalid_utf8_is_replaced_not_raised() -> None:
    events = _events(b'data: {"type": "t", "v": "\xff"}\n\n')
    assert events[0][0] == "t"


_FRAMES = st.sampled_from(
    [
        b'data: {"type": "response.output_text.delta", "delta": "hi", "output_index": 0}\n\n',
        b'event: response.output_text.delta\ndata: {"delta": "named"}\n\n',
        b'event: message\ndata: {"type": "m"}\n\n',
        b'data: {"object": "response", "id": "r"}\n\n',
        b'data: {"error": {"message": "boom"}}\n\n',
        b'data: {"a": {"b": {"c": {"d": [1]}}}}\n\n',  # deeper than the limit below
        b'data: {"a": 1}, {"b": 2}\n\n',  # two objects: one array item too many when joined
        b'data: {"a": 1} \n\n',
        b'data: {"split":\ndata: 1}\n\n',
        b"data: [1, 2]\n\n",
        b"data: {not json\n\n",
        b'data: {"type": "done"}\n\n',
        b": keep-alive\n\n",
        b"data:\n\n",
        b"data: [DONE]\n\n",
        b"event: done\ndata: {}\n\n",
    ]
)


@given(frames=st.lists(_FRAMES, max_size=25), cuts=st.lists(st.integers(0, 1500), max_size=6))
def test_frames_parsed_together_give_what_frames_parsed_alone_give(
    frames: list[bytes], cuts: list[int]
) -> None:
    """The JSON of one read's events is parsed in one call (``jsonsafe.whole_objects``);
    whatever the frames and the read boundaries, the events are those of parsing each alone."""
    body = b"".join(frames)

    def decode() -> list[tuple[str, object]]:
        decoder = SSEDecoder(max_depth=3)
        out: list[tuple[str, object]] = []
        start = 0
        for cut in [*sorted({min(c, len(body)) for c in cuts}), len(body)]:
            out += [(e.type, e.data) for e in decoder.feed(body[start:cut])]
            start = cut
        out += [(e.type, e.data) for e in decoder.flush()]
        return out

    together = decode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonsafe, "whole_objects", lambda *_: None)
        alone = decode()
    assert together == alone


def test_a_read_of_events_is_parsed_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = jsonsafe.whole_objects

    def counting(texts: list[str], max_depth: int | None = None) -> object:
        calls.append(len(texts))
        return real(texts, max_depth)

    monkeypatch.setattr(jsonsafe, "whole_objects", counting)
    frame = b'data: {"type": "response.output_text.delta", "delta": "x"}\n\n'
    events = SSEDecoder().feed(frame * 40 + b"data: [DONE]\n\n")
    assert [event.type for event in events] == ["response.output_text.delta"] * 40 + ["done"]
    assert calls == [40]
