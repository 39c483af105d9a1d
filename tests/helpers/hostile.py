"""A hostile server for tests: the faults a third-party server can throw at Forge, on loopback.

Each fault is a function ``(api) -> ReplySource`` for :class:`helpers.loopback.LoopbackServer`,
where ``api`` is ``"responses"`` or ``"chat"``: the same attack dressed in each API's wire format.

- ``echo_key_error_body``: HTTP 400 (or 401) whose JSON error quotes the ``Authorization`` header;
- ``echo_key_in_stream``: a 200 stream whose in-stream error event quotes it;
- ``gzip_bomb_stream``: a small gzip body that inflates to ``size`` bytes of one endless line;
- ``gzip_bomb_error``: the same as the body of an HTTP 400;
- ``deep_event``: an event nested ``depth`` deep, then a good answer;
- ``huge_line``: one SSE line of ``size`` bytes, in 64 KiB chunks;
- ``truncated``: part of an answer, then a clean close without the terminal event;
- ``garbage``: only malformed ``data:`` lines (one quoting the key);
- ``echo_key_in_answer``: a good answer whose text quotes the key.
"""

from __future__ import annotations

import functools
import json
import struct
import zlib
from typing import Any, Literal

from helpers.loopback import RecordedRequest, Reply, ReplySource, Send

__all__ = [
    "ANSWER",
    "Api",
    "answer_reply",
    "deep_event",
    "echo_key_error_body",
    "echo_key_in_answer",
    "echo_key_in_stream",
    "garbage",
    "gzip_bomb",
    "gzip_bomb_error",
    "gzip_bomb_stream",
    "huge_line",
    "truncated",
]

Api = Literal["responses", "chat"]
ANSWER = "The hostile server answered."


def _frame(data: dict[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"data: {payload}\n\n".encode()


def _chat_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-h",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _responses_events(text: str, *, terminal: bool = True) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_h", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "m1", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "item_id": "m1",
            "delta": text,
        },
    ]
    if terminal:
        events += [
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {
                    "type": "message",
                    "id": "m1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                },
            },
            {"type": "response.completed", "response": {"id": "resp_h", "status": "completed"}},
        ]
    return events


def _answer_frames(api: Api, text: str = ANSWER, *, terminal: bool = True) -> list[bytes]:
    if api == "chat":
        frames = [_frame(_chat_chunk({"role": "assistant", "content": text}))]
        if terminal:
            frames += [_frame(_chat_chunk({}, "stop")), b"data: [DONE]\n\n"]
        return frames
    return [_frame(event) for event in _responses_events(text, terminal=terminal)]


def answer_reply(api: Api, text: str = ANSWER) -> Reply:
    """A well-formed streamed answer."""
    return Reply.sse([Send(frame) for frame in _answer_frames(api, text)])


def _auth(request: RecordedRequest) -> str:
    return request.headers.get("authorization", "")


def echo_key_error_body(api: Api, status: int = 400) -> ReplySource:
    """An HTTP error whose JSON message quotes the Authorization header and the bare key."""

    def reply(request: RecordedRequest) -> Reply:
        auth = _auth(request)
        key = auth.removeprefix("Bearer ")
        message = f"invalid request; you sent {auth} (key {key})"
        return Reply.json(status, {"error": {"message": message, "type": "invalid_request"}})

    return reply


def echo_key_in_stream(api: Api) -> ReplySource:
    """A 200 stream: some text, then an in-stream error quoting the key."""

    def reply(request: RecordedRequest) -> Reply:
        auth = _auth(request)
        key = auth.removeprefix("Bearer ")
        message = f"upstream refused {auth}; key was {key}"
        frames = _answer_frames(api, "partial ", terminal=False)
        if api == "chat":
            frames.append(_frame({"error": {"message": message, "code": "bad_key"}}))
        else:
            frames.append(
                _frame({"type": "error", "message": message, "code": "bad_key", "param": None})
            )
        return Reply.sse([Send(frame) for frame in frames])

    return reply


@functools.lru_cache(maxsize=4)
def gzip_bomb(size: int, prefix: bytes = b"data: ") -> bytes:
    """Gzip of ``prefix`` then ``size`` bytes of ``a`` with no line end (cached per size).

    Built without deflating all ``size`` bytes (seconds for a GiB): after a full flush deflate
    starts afresh, so every further MiB of ``a`` deflates to the same bytes, repeated here; the
    trailer's CRC-32 and length are those of the inflated data."""
    block = b"a" * (1 << 20)
    blocks, rest = divmod(size, len(block))
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)  # raw deflate: no header
    parts = [deflate.compress(prefix), deflate.flush(zlib.Z_FULL_FLUSH)]
    crc = zlib.crc32(prefix)
    if blocks:
        parts.append((deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)) * blocks)
        for _ in range(blocks):
            crc = zlib.crc32(block, crc)
    parts += [deflate.compress(block[:rest]), deflate.flush()]
    crc = zlib.crc32(block[:rest], crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip, deflate, no name or time
    trailer = struct.pack("<II", crc, (len(prefix) + size) & 0xFFFFFFFF)
    return header + b"".join(parts) + trailer


def _chunks(data: bytes, size: int = 64 * 1024) -> list[Send]:
    return [Send(data[i : i + size]) for i in range(0, len(data), size)]


def gzip_bomb_stream(api: Api, size: int) -> Reply:
    """A 200 event stream, gzip-encoded, inflating to ``size`` bytes of one line."""
    return Reply.sse(_chunks(gzip_bomb(size)), headers={"Content-Encoding": "gzip"})


def gzip_bomb_error(api: Api, size: int) -> Reply:
    """An HTTP 400 whose gzip body inflates to ``size`` bytes."""
    body = gzip_bomb(size, prefix=b'{"error": {"message": "')
    return Reply(
        status=400,
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        body=body,
    )


def deep_event(api: Api, depth: int) -> Reply:
    """An event nested ``depth`` deep (invalid, skipped), then a complete good answer."""
    deep = "[" * depth + "]" * depth
    if api == "chat":
        bad = _frame('{"id": "x", "object": "chat.completion.chunk", "choices": ' + deep + "}")
    else:
        bad = _frame('{"type": "response.output_text.delta", "delta": ' + deep + "}")
    frames = _answer_frames(api)
    return Reply.sse([Send(frames[0]), Send(bad), *(Send(frame) for frame in frames[1:])])


def huge_line(api: Api, size: int) -> Reply:
    """One ``data:`` line of ``size`` bytes sent in 64 KiB chunks, never ended."""
    steps = [Send(b"data: ")]
    chunk = b"a" * (64 * 1024)
    steps += [Send(chunk) for _ in range(size // len(chunk))]
    return Reply.sse(steps)


def truncated(api: Api) -> Reply:
    """The start of an answer, then a clean end of the body with no terminal event."""
    return Reply.sse([Send(frame) for frame in _answer_frames(api, "half an ans", terminal=False)])


def garbage(api: Api) -> ReplySource:
    """Only malformed ``data:`` lines (one quoting the key, for ``--debug`` logs), then an end."""

    def reply(request: RecordedRequest) -> Reply:
        echo = f"data: {{not json {_auth(request)}\n\n".encode()
        frames = [b"data: {not json\n\n", b"data: <html>\n\n", b"data: \x00\xff\xfe\n\n", echo]
        return Reply.sse([Send(frame) for frame in frames])

    return reply


def echo_key_in_answer(api: Api) -> ReplySource:
    """A good answer whose text quotes the key and the Authorization header."""

    def reply(request: RecordedRequest) -> Reply:
        auth = _auth(request)
        return answer_reply(api, f"You sent {auth}, key {auth.removeprefix('Bearer ')}.")

    return reply
