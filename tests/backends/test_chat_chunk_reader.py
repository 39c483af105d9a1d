"""The chat backend's chunk reader: the same chunks whatever the network's read boundaries."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forge_cli.backends.chat import backend as chat_completions
from forge_cli.backends.chat.backend import _ChunkReader
from forge_cli.backends.http.client import BodyBudget
from forge_cli.errors import ProtocolError
from forge_cli.limits import DEFAULT_LIMITS

_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_CHUNKS = st.lists(
    st.fixed_dictionaries({"choices": st.just([{"index": 0}]), "text": _TEXT}), max_size=8
)


def _frame(chunk: dict[str, Any], style: int) -> bytes:
    data = json.dumps(chunk)
    if style == 0:  # the usual: one line, a blank line
        return f"data: {data}\n\n".encode()
    if style == 1:  # no blank line at all (some servers), CRLF line ends
        return f"data:{data}\r\n".encode()
    pretty = json.dumps(chunk, indent=1).split("\n")  # one event over several data lines
    return ("".join(f"data: {line}\n" for line in pretty) + "event: x\n: comment\n\n").encode()


def _read(body: bytes, cuts: list[int]) -> list[Any]:
    reader = _ChunkReader(BodyBudget("http://x"))
    out: list[Any] = []
    start = 0
    for cut in sorted({min(c, len(body)) for c in cuts}):
        out.extend(reader.feed(body[start:cut]))
        start = cut
        if reader.done:
            return out
    out.extend(reader.feed(body[start:]))
    if not reader.done:
        out.extend(reader.flush())
    return out


@given(
    chunks=_CHUNKS,
    styles=st.lists(st.integers(0, 2), min_size=8, max_size=8),
    cuts=st.lists(st.integers(0, 4000), max_size=12),
    done=st.booleans(),
)
def test_chunks_do_not_depend_on_read_boundaries(
    chunks: list[dict[str, Any]], styles: list[int], cuts: list[int], done: bool
) -> None:
    body = b"".join(_frame(chunk, styles[i]) for i, chunk in enumerate(chunks))
    body += b"data: not json\n\n"  # skipped
    if done:
        body += b"data: [DONE]\n\n" + _frame({"after": "done"}, 0)
    expected: list[Any] = [*chunks, None] if done else chunks
    assert _read(body, cuts) == expected
    assert _read(body, []) == expected


def test_an_event_over_the_limit_is_stopped() -> None:
    limits = replace(DEFAULT_LIMITS, max_event_bytes=64)
    reader = _ChunkReader(BodyBudget("http://x"), limits)
    with pytest.raises(ProtocolError, match="larger than"):
        reader.feed(b"data: [1,\n" * 30)


def test_the_body_budget_holds() -> None:
    reader = _ChunkReader(BodyBudget("http://x", limit=100))
    with pytest.raises(ProtocolError, match="larger than"):
        reader.feed(b"data: {}\n\n" * 20)


_LINES = st.sampled_from(
    [
        b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}',
        b'data: {"a": {"b": {"c": {"d": [1]}}}}',  # deeper than the limit below
        b'data: {"a": 1} trailing',
        b'data: {"a": 1}  \x0b',
        b'data: {"a": "\\ud800"}',
        b'data: {"a": "\xff\xfe"}',
        b'data: {"a": 1}{"b": 2}',
        b'data: {"a": 1}, {"b": 2}',  # two objects: one array item too many when joined
        b'data: {"a": 1},',
        b'data: {"split": ',  # an object over two data lines
        b'data: "rest"}',
        b'data: {"x": 1}]',
        b'data: {"unclosed": [1, 2',
        b"data: {}",
        b"data:{}",
        b"data: [1, 2]",
        b"data: [DONE]",
        b"data: 7",
        b": keep-alive",
        b"event: message",
        b"",
    ]
)


def _read_lines(body: bytes, cuts: list[int], limits: Any) -> list[Any]:
    reader = _ChunkReader(BodyBudget("http://x"), limits)
    out: list[Any] = []
    start = 0
    for cut in [*sorted({min(c, len(body)) for c in cuts}), len(body)]:
        out.extend(reader.feed(body[start:cut]))
        start = cut
        if reader.done:
            return out
    return out + reader.flush()


@given(lines=st.lists(_LINES, max_size=30), cuts=st.lists(st.integers(0, 900), max_size=6))
def test_the_one_line_chunk_path_takes_what_the_general_path_takes(
    lines: list[bytes], cuts: list[int]
) -> None:
    body = b"\n".join(lines) + b"\n"
    limits = replace(DEFAULT_LIMITS, max_json_depth=3)
    fast = _read_lines(body, cuts, limits)
    with pytest.MonkeyPatch.context() as patch:  # every line through the general path
        patch.setattr(chat_completions, "whole_object", lambda *_: None)
        patch.setattr(chat_completions, "whole_objects", lambda *_: None)
        general = _read_lines(body, cuts, limits)
    assert fast == general


@given(lines=st.lists(_LINES, max_size=30), cuts=st.lists(st.integers(0, 900), max_size=6))
def test_lines_parsed_together_give_what_lines_parsed_alone_give(
    lines: list[bytes], cuts: list[int]
) -> None:
    """A read's ``data: {...}`` lines are parsed in one call (``jsonsafe.whole_objects``);
    whatever the lines, the chunks are those of parsing each line on its own."""
    body = b"\n\n".join(lines) + b"\n"
    limits = replace(DEFAULT_LIMITS, max_json_depth=3)
    together = _read_lines(body, cuts, limits)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chat_completions, "whole_objects", lambda *_: None)
        alone = _read_lines(body, cuts, limits)
    assert together == alone


def test_a_read_of_chunks_is_parsed_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = chat_completions.whole_objects

    def counting(texts: list[str], max_depth: int | None = None) -> Any:
        calls.append(len(texts))
        return real(texts, max_depth)

    monkeypatch.setattr(chat_completions, "whole_objects", counting)
    chunk = {"choices": [{"index": 0, "delta": {"content": "x"}}]}
    body = b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for _ in range(50))
    reader = _ChunkReader(BodyBudget("http://x"))
    assert reader.feed(body + b"data: [DONE]\n\n") == [chunk] * 50 + [None]
    assert calls == [50]
