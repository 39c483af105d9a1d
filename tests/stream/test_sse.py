"""The SSE reader: framing, line ends, comments, end markers, broken JSON."""

from __future__ import annotations

import pytest

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
