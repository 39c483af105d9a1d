"""A read of text chunks alike is cut into its texts without parsing them (``TextRun``).

Once a read ended with a text-only chunk, the chat reader knows that chunk's line cut around its
text (``_Template``); a later read whose every line is that cut with another text that needs no
unescaping is taken as one run of texts, which the translator holds as it would hold the chunks.
The snapshots must be exactly those of the general path (every chunk parsed), after every read:
checked on the recorded chat streams and on made-up streams of chunks alike, unlike, escaped and
hostile, split into reads at any points.
"""

from __future__ import annotations

import itertools
import json
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from forge_cli.backends import _chat_stream, chat_completions
from forge_cli.backends._chat_stream import ChatStreamTranslator
from forge_cli.backends._http import BodyBudget
from forge_cli.backends.chat_completions import TextRun, _ChunkReader, _read_events
from forge_cli.protocol.events import StreamEvent
from forge_cli.stream.builder import SnapshotBuilder
from replay.recordings import STREAMS, load  # type: ignore[import-not-found]


def _fold(body: bytes, cuts: list[int], *, runs: bool) -> tuple[list[dict[str, Any]], int]:
    """The snapshot (dumped) after each read and at the end, and how many runs were cut."""
    ids = itertools.count()  # the same item ids either way
    with mock.patch.object(_chat_stream, "_new_id", lambda prefix: f"{prefix}_{next(ids)}"):
        translator = ChatStreamTranslator("m")
        translator.created_at = 0.0
        reader = _ChunkReader(BodyBudget("http://x"), runs=runs)
        builder = SnapshotBuilder()
        snapshots: list[dict[str, Any]] = []
        taken = 0

        def apply(events: list[StreamEvent]) -> None:
            for event in events:
                builder.apply(event)
            snapshots.append(builder.snapshot.model_dump(mode="json"))

        apply(translator.start())
        bounds = [0, *sorted({min(cut, len(body)) for cut in cuts}), len(body)]
        failed = False
        for start, end in itertools.pairwise(bounds):
            items = reader.feed(body[start:end])
            taken += sum(isinstance(item, TextRun) for item in items)
            if items:
                read = _read_events(translator, reader, items)
                apply(read.events)
                failed = read.failed
            if failed or reader.done:
                break
        if not failed:
            rest = reader.flush() if not reader.done else []
            if rest:
                apply(_read_events(translator, reader, rest).events)
            apply(translator.finish())
    return snapshots, taken


def _same_either_way(body: bytes, cuts: list[int]) -> int:
    cut_runs, taken = _fold(body, cuts, runs=True)
    parsed, none = _fold(body, cuts, runs=False)
    assert none == 0
    assert len(cut_runs) == len(parsed)
    for index, (a, b) in enumerate(zip(cut_runs, parsed, strict=True)):
        assert a == b, f"after read {index}"
    return taken


def _line(chunk: dict[str, Any], compact: bool = True, ascii_only: bool = False) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    data = json.dumps(chunk, separators=separators, ensure_ascii=ascii_only)
    return f"data: {data}\n\n".encode()


def _text_chunk(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": extra.pop("model", "m1"),
        "choices": [{"index": 0, "delta": {"content": text, **extra}, "finish_reason": None}],
    }


def test_recorded_streams_give_the_same_snapshots() -> None:
    for path in sorted(STREAMS.glob("C*.sse")):
        body = b"".join(load(path).frames)
        for cuts in ([], list(range(0, len(body), 97)), [len(body) // 3, 2 * len(body) // 3]):
            _same_either_way(body, cuts)


def test_a_long_answer_is_read_as_runs_after_its_first_read() -> None:
    body = _line({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
    body += b"".join(_line(_text_chunk(f" word{i}")) for i in range(600))
    body += _line({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body += b"data: [DONE]\n\n"
    cuts = list(range(4096, len(body), 4096))
    assert _same_either_way(body, cuts) > len(cuts) // 2  # most reads were cut, not parsed


_TEXT = st.text(
    alphabet=st.sampled_from([*"abcdefgh {}:,é\u2028", '"', "\\", "\n", "\t", "\x00"]),
    max_size=6,
)
_KIND = st.sampled_from(["text"] * 12 + ["model", "role", "extra", "finish", "error"])


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.tuples(_KIND, _TEXT), min_size=1, max_size=40),
    compact=st.booleans(),
    ascii_only=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=12),
    done=st.booleans(),
)
def test_made_up_streams_give_the_same_snapshots(
    pieces: list[tuple[str, str]], compact: bool, ascii_only: bool, cuts: list[int], done: bool
) -> None:
    """One server's chunks are alike (its separators, its escaping); their texts and the odd
    chunk of another shape vary."""
    body = _line({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "x"}}]})
    for kind, text in pieces:
        if kind == "model":
            chunk = _text_chunk(text, model="m2")
        elif kind == "role":
            chunk = _text_chunk(text, role="assistant")
        elif kind == "extra":
            chunk = {**_text_chunk(text), "usage": {"total_tokens": len(text)}}
        elif kind == "finish":
            chunk = {**_text_chunk(text)}
            chunk["choices"] = [{**chunk["choices"][0], "finish_reason": "stop"}]
        elif kind == "error":
            chunk = {**_text_chunk(text), "error": {"message": "boom"}}
        else:
            chunk = _text_chunk(text)
        body += _line(chunk, compact, ascii_only)
    if done:
        body += b"data: [DONE]\n\n"
    _same_either_way(body, cuts)


def test_a_template_is_learnt_only_where_the_text_can_be_cut_out() -> None:
    learn = chat_completions._Template.learn
    line = _line(_text_chunk("hello")).decode().rstrip("\n")
    template = learn(line, 64)
    assert template is not None
    assert template.run([line.replace("hello", "bye")], []) is not None
    assert template.run([line.replace("hello", 'say "hi"')], []) is None  # not one string
    escaped = template.run([line.replace("hello", "a\\nb\\u00e9\\\\")], [])
    assert escaped is not None
    assert escaped.texts == ["a\nb\u00e9\\"]  # decoded as the parser decodes them
    assert template.run([line.replace("hello", "ab\\")], []) is None  # it escapes the quote
    assert template.run([line.replace("hello", "a\\qb")], []) is None  # no such escape
    assert learn(line.replace('"m1"', '"hello"'), 64) is None  # the text twice in the line
    assert learn(_line(_text_chunk("a\\nb")).decode().rstrip("\n"), 64) is None  # escaped
    finished = _text_chunk("hello")
    finished["choices"][0]["finish_reason"] = "stop"
    assert learn(_line(finished).decode().rstrip("\n"), 64) is None  # not a text-only chunk
