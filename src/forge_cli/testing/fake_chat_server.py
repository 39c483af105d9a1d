"""A loopback OpenAI-compatible Chat Completions server that replays scripted replies.

Real HTTP on 127.0.0.1 (a stdlib server in a background thread), so tests exercise the SDK, the
transport and our parsing for real. Each POST to ``/v1/chat/completions`` takes the next
:class:`ChatReply`: a list of chunk dicts streamed as SSE (chunked transfer encoding, one write
per chunk), or an error status with a JSON body. Requests are recorded (``requests``) and the
server fails loudly: a request with no reply left gets HTTP 500 and is counted in ``unexpected``;
:meth:`FakeChatServer.assert_consumed` raises if replies are left or a request was unexpected.

The chunk builders (:func:`text_chunks`, :func:`tool_call_chunks`) produce the tool-call
chunking variants real servers send (protocol.md §5.3).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "ChatReply",
    "FakeChatServer",
    "ToolCallStyle",
    "chunk",
    "text_chunks",
    "tool_call_chunks",
    "usage_chunk",
]

ToolCallStyle = Literal["openai", "repeated", "whole", "one_chunk", "no_index", "duplicate"]


@dataclass
class ChatReply:
    """One scripted reply: streamed ``chunks`` (then ``[DONE]`` when ``done``), or an error."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    body: Any = None
    done: bool = True
    headers: dict[str, str] = field(default_factory=dict)


def chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish_reason: str | None = None,
    model: str = "fake-model",
    ident: str = "chatcmpl-fake",
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` with a single choice."""
    return {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
    }


def usage_chunk(prompt_tokens: int = 10, completion_tokens: int = 5) -> dict[str, Any]:
    """The final usage-only chunk that ``stream_options.include_usage`` asks for."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake-model",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def text_chunks(
    text: str, *, pieces: int = 3, finish_reason: str = "stop", usage: bool = True
) -> list[dict[str, Any]]:
    """A plain text answer split into ``pieces`` deltas."""
    size = max(1, -(-len(text) // max(1, pieces)))
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": text[i : i + size]}) for i in range(0, len(text), size)]
    chunks.append(chunk({}, finish_reason=finish_reason))
    if usage:
        chunks.append(usage_chunk())
    return chunks


def tool_call_chunks(
    calls: Sequence[tuple[str, dict[str, Any] | str]],
    *,
    style: ToolCallStyle = "openai",
    finish_reason: str = "tool_calls",
    content: str | None = None,
    ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Chunks that call ``calls`` (name, arguments), fragmented the way ``style`` says.

    - ``openai``: id/name in the first fragment, arguments in later ones (the canonical shape);
    - ``repeated``: id and name repeated in every fragment (protocol.md §5.3.1);
    - ``whole``: each call complete in its own chunk (Ollama);
    - ``one_chunk``: every call complete in a single chunk, indexes 0..n;
    - ``no_index``: every call complete in a single chunk, without ``index`` fields;
    - ``duplicate``: two entries for the same index in one chunk (vLLM speculative decoding).
    """
    call_ids = list(ids or [f"call_{n}" for n in range(len(calls))])
    prepared = [
        (call_ids[n], name, args if isinstance(args, str) else json.dumps(args))
        for n, (name, args) in enumerate(calls)
    ]
    chunks = [chunk({"role": "assistant", "content": content})]
    chunks += _style_chunks(prepared, style)
    chunks.append(chunk({}, finish_reason=finish_reason))
    chunks.append(usage_chunk())
    return chunks


def _fragment(index: int | None, ident: str | None, name: str | None, args: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"function": {"arguments": args}}
    if index is not None:
        entry["index"] = index
    if ident is not None:
        entry["id"] = ident
        entry["type"] = "function"
    if name is not None:
        entry["function"]["name"] = name
    return entry


def _split(text: str) -> list[str]:
    third = max(1, len(text) // 3)
    return [p for p in (text[:third], text[third : 2 * third], text[2 * third :]) if p]


def _style_chunks(calls: list[tuple[str, str, str]], style: ToolCallStyle) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if style == "one_chunk":
        return [
            chunk({"tool_calls": [_fragment(n, i, nm, a) for n, (i, nm, a) in enumerate(calls)]})
        ]
    if style == "no_index":
        return [chunk({"tool_calls": [_fragment(None, i, nm, a) for i, nm, a in calls]})]
    for n, (ident, name, args) in enumerate(calls):
        if style == "whole":
            out.append(chunk({"tool_calls": [_fragment(n, ident, name, args)]}))
        elif style == "repeated":
            out += [chunk({"tool_calls": [_fragment(n, ident, name, p)]}) for p in _split(args)]
        elif style == "duplicate":
            pieces = _split(args)
            out.append(chunk({"tool_calls": [_fragment(n, ident, name, pieces[0])]}))
            rest = [_fragment(n, None, None, p) for p in pieces[1:]]
            out.append(chunk({"tool_calls": rest}))
        else:
            out.append(chunk({"tool_calls": [_fragment(n, ident, name, "")]}))
            out += [chunk({"tool_calls": [_fragment(n, None, None, p)]}) for p in _split(args)]
    return out


class FakeChatServer:
    """Serve scripted Chat Completions replies on 127.0.0.1; use as a context manager."""

    def __init__(self, replies: Iterable[ChatReply | list[dict[str, Any]]] = ()) -> None:
        self._replies: list[ChatReply] = [_as_reply(reply) for reply in replies]
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.unexpected = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def add(self, reply: ChatReply | list[dict[str, Any]]) -> None:
        """Queue one more reply."""
        with self._lock:
            self._replies.append(_as_reply(reply))

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        if self._server is None:
            raise RuntimeError("FakeChatServer is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeChatServer:
        """Start serving in a background thread."""
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        # A short poll interval keeps stop() fast (shutdown waits for the next poll).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    @property
    def remaining(self) -> int:
        """Replies not yet served."""
        with self._lock:
            return len(self._replies)

    def assert_consumed(self) -> None:
        """Raise when replies are left or a request came with no reply left."""
        if self.remaining or self.unexpected:
            raise AssertionError(
                f"FakeChatServer: {self.remaining} reply(ies) unused, "
                f"{self.unexpected} unexpected request(s)"
            )

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> ChatReply | None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if not self._replies:
                self.unexpected += 1
                return None
            return self._replies.pop(0)


def _as_reply(reply: ChatReply | list[dict[str, Any]]) -> ChatReply:
    return reply if isinstance(reply, ChatReply) else ChatReply(chunks=list(reply))


class _QuietServer(ThreadingHTTPServer):
    """Clients closing kept-alive connections is normal here: do not print those tracebacks."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        return None

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        reply = self.fake._next(body, {k.lower(): v for k, v in self.headers.items()})
        if reply is None:
            self._json(500, {"error": {"message": "FakeChatServer has no reply left"}})
        elif reply.status != 200:
            self._json(reply.status, reply.body, reply.headers)
        else:
            self._stream(reply)

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, reply: ChatReply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        frames = [f"data: {json.dumps(item)}\n\n" for item in reply.chunks]
        if reply.done:
            frames.append("data: [DONE]\n\n")
        for frame in frames:
            data = frame.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
