"""The chat backend's read of a body gives the snapshots of the plainest reading, after every read.

The backend reads a body in network reads: the chunk reader parses a read's lines together
(``_ChunkReader``), and the translator holds the read's text and sends it as one delta
(``_read_events``, ADR-0026). The plainest reading parses every ``data:`` line on its own and
feeds each chunk to the translator as it is, one event at a time. The snapshots must be the same
after every read and at the end: checked on the recorded chat streams and on made-up streams of
chunks alike, unlike, escaped and hostile (each server's separators and escaping), split into
reads at any points.
"""

from __future__ import annotations

import itertools
import json
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from forge_cli.backends.chat import stream as _chat_stream
from forge_cli.backends.chat.backend import _ChunkReader, _read_events, _stream_error
from forge_cli.backends.chat.stream import ChatStreamTranslator
from forge_cli.backends.http.client import BodyBudget
from forge_cli.protocol.events import StreamEvent
from forge_cli.stream.builder import SnapshotBuilder
from replay.recordings import STREAMS, load  # type: ignore[import-not-found]


class _Folder:
    """A translator and a builder with ids that are the same on every run."""

    def __init__(self) -> None:
        ids = itertools.count()
        self._patch = mock.patch.object(
            _chat_stream, "_new_id", lambda prefix: f"{prefix}_{next(ids)}"
        )
        self._patch.start()
        self.translator = ChatStreamTranslator("m")
        self.translator.created_at = 0.0
        self.builder = SnapshotBuilder()

    def apply(self, events: list[StreamEvent]) -> None:
        for event in events:
            self.builder.apply(event)

    def snapshot(self) -> dict[str, Any]:
        dump: dict[str, Any] = self.builder.snapshot.model_dump(mode="json")
        return dump

    def close(self) -> None:
        self._patch.stop()


def _by_reads(body: bytes, cuts: list[int]) -> tuple[list[dict[str, Any]], list[int]]:
    """The backend's way: the snapshot after each read that gave chunks and at the end, and
    how many chunks had been read at each of those snapshots."""
    folder = _Folder()
    try:
        translator = folder.translator
        reader = _ChunkReader(BodyBudget("http://x"))
        snapshots: list[dict[str, Any]] = []
        counts: list[int] = []
        taken = 0
        folder.apply(translator.start())
        bounds = [0, *sorted({min(cut, len(body)) for cut in cuts}), len(body)]
        failed = False
        reads = [reader.feed(body[start:end]) for start, end in itertools.pairwise(bounds)]
        for items in [*reads, reader.flush()]:
            if not items:
                continue
            read = _read_events(translator, items)
            folder.apply(read.events)
            taken += read.chunks
            snapshots.append(folder.snapshot())
            counts.append(taken)
            failed = read.failed
            if failed or read.finished:
                break
        if not failed:
            folder.apply(translator.finish())
        snapshots.append(folder.snapshot())
        return snapshots, counts
    finally:
        folder.close()


def _chunks(body: bytes) -> list[dict[str, Any]]:
    """Every chunk of ``body`` up to ``[DONE]``, each line parsed on its own."""
    chunks: list[dict[str, Any]] = []
    for line in body.decode().split("\n"):
        if not line.startswith("data:"):
            continue
        if line[5:].strip() == "[DONE]":
            break
        chunks.append(json.loads(line[5:]))
    return chunks


def _one_by_one(body: bytes, counts: list[int]) -> list[dict[str, Any]]:
    """The plainest way: each chunk fed on its own, one delta per text chunk; the snapshot after
    each of ``counts`` chunks and at the end."""
    folder = _Folder()
    try:
        translator = folder.translator
        snapshots: list[dict[str, Any]] = []
        folder.apply(translator.start())
        wanted = list(counts)
        failed = False
        for number, chunk in enumerate(_chunks(body), start=1):
            error = _stream_error(chunk)
            if error is not None:
                folder.apply(translator.fail(*error))
                failed = True
            else:
                folder.apply(translator.feed(chunk))
            while wanted and wanted[0] == number:
                snapshots.append(folder.snapshot())
                wanted.pop(0)
            if failed:
                break
        if not failed:
            folder.apply(translator.finish())
        snapshots.append(folder.snapshot())
        return snapshots
    finally:
        folder.close()


def _same_either_way(body: bytes, cuts: list[int]) -> None:
    by_reads, counts = _by_reads(body, cuts)
    plain = _one_by_one(body, counts)
    assert len(by_reads) == len(plain)
    for index, (a, b) in enumerate(zip(by_reads, plain, strict=True)):
        assert a == b, f"after read {index}"


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


def test_a_long_answer_in_4k_reads_gives_the_same_snapshots() -> None:
    body = _line({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
    body += b"".join(_line(_text_chunk(f" word{i}")) for i in range(600))
    body += _line({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body += b"data: [DONE]\n\n"
    _same_either_way(body, list(range(4096, len(body), 4096)))


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
