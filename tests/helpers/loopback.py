"""A real HTTP/1.1 server on 127.0.0.1 for tests, scripted one reply per request.

Use it to test HTTP behaviour for real (retries, timeouts, disconnects, cancellation) rather than
through mock transports. It runs on raw sockets in background threads, so a test controls every
byte: status and headers, SSE chunks flushed one by one, pauses gated on a
:class:`threading.Event`, abrupt disconnects, and it notices when the client goes away.

Example::

    with LoopbackServer() as server:
        gate = threading.Event()
        server.add(
            Reply.json(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "2"}),
            Reply.sse([sse({"type": "response.created"}), WaitFor(gate), AwaitDisconnect()]),
        )
        ...  # point a client at server.base_url ("http://127.0.0.1:PORT/v1")
        assert server.requests[1].disconnected.wait(5)

Rules of the server:

- Each incoming request takes the next queued :class:`Reply` (FIFO). A request with nothing
  queued is answered ``500`` and recorded in :attr:`LoopbackServer.errors`;
  :meth:`LoopbackServer.assert_consumed` fails on errors and on replies left unused.
- One request per connection: every reply carries ``Connection: close``.
- A reply with ``steps`` is sent with chunked transfer encoding; each :class:`Send` is one chunk,
  written straight to the socket (no buffering; ``TCP_NODELAY``). When the steps run out the
  closing zero-length chunk is sent, unless a :class:`Drop` step cut the connection first.
- Pauses never sleep: :class:`WaitFor` blocks on an event the test sets, :class:`AwaitDisconnect`
  blocks until the client closes its end. Both give up after their timeout or when the server
  stops, so a failing test cannot hang the suite.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import struct
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

__all__ = [
    "AwaitDisconnect",
    "Drop",
    "LoopbackServer",
    "RecordedRequest",
    "Reply",
    "Send",
    "Step",
    "WaitFor",
    "sse",
    "sse_done",
]

_POLL = 0.02  # how often a blocked step re-checks for server shutdown (not a wait for the test)
_MAX_HEAD = 64 * 1024


@dataclass
class RecordedRequest:
    """A request as the server received it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    disconnected: threading.Event = field(default_factory=threading.Event)
    """Set when the server saw the client close the connection while replying."""

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


@dataclass(frozen=True)
class Send:
    """Write ``data`` as one chunk and flush it."""

    data: bytes


@dataclass(frozen=True)
class WaitFor:
    """Pause the reply until the test sets ``event`` (or ``timeout`` seconds pass)."""

    event: threading.Event
    timeout: float = 10.0


@dataclass(frozen=True)
class AwaitDisconnect:
    """Pause until the client closes the connection; marks the request ``disconnected``.

    Steps after this one are never sent when the client does disconnect, so putting events after
    it shows the client went away "while the server still had events to send".
    """

    timeout: float = 10.0


@dataclass(frozen=True)
class Drop:
    """Close the connection abruptly: no closing chunk; with ``reset=True`` send a TCP RST."""

    reset: bool = False


Step = Send | WaitFor | AwaitDisconnect | Drop


def sse(data: Mapping[str, Any] | str, *, event: str | None = None) -> Send:
    """One SSE frame: an optional ``event:`` line and ``data`` (a dict is JSON-encoded)."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    lines = "".join(f"data: {line}\n" for line in payload.split("\n"))
    return Send(f"{head}{lines}\n".encode())


def sse_done() -> Send:
    """The OpenAI end-of-stream marker ``data: [DONE]``."""
    return Send(b"data: [DONE]\n\n")


def responses_answer(text: str, **response: Any) -> list[Send]:
    """The SSE frames of a Responses answer: one ``output_text`` delta with ``text``, then
    ``response.completed`` whose one message holds it (``response`` adds fields to it)."""
    message = {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip
    done = {"id": "resp_1", "object": "response", "status": "completed", **response,
            "output": [message]}  # fmt: skip
    return [
        sse({"type": "response.output_text.delta", "delta": text}),
        sse({"type": "response.completed", "response": done}),
    ]


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request.

    ``body`` gives a fixed-length reply; ``steps`` a chunked, streamed one. ``hold_headers``
    delays even the status line until the event is set (a server that accepts and says nothing).
    ``drop_before_reply`` closes the connection without any reply.
    """

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    steps: tuple[Step, ...] | None = None
    hold_headers: threading.Event | None = None
    drop_before_reply: bool = False

    @classmethod
    def json(cls, status: int, payload: Any, *, headers: Mapping[str, str] | None = None) -> Reply:
        """A JSON reply."""
        merged = {"Content-Type": "application/json", **(headers or {})}
        return cls(status=status, headers=merged, body=json.dumps(payload).encode())

    @classmethod
    def text(cls, status: int, text: str, *, headers: Mapping[str, str] | None = None) -> Reply:
        """A plain-text reply."""
        merged = {"Content-Type": "text/plain; charset=utf-8", **(headers or {})}
        return cls(status=status, headers=merged, body=text.encode())

    @classmethod
    def sse(
        cls,
        steps: Iterable[Step],
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        hold_headers: threading.Event | None = None,
    ) -> Reply:
        """A streamed ``text/event-stream`` reply made of ``steps``."""
        merged = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        merged.update(headers or {})
        return cls(status=status, headers=merged, steps=tuple(steps), hold_headers=hold_headers)

    @classmethod
    def drop(cls) -> Reply:
        """Read the request, then close the connection without replying."""
        return cls(drop_before_reply=True)


ReplySource = Reply | Callable[[RecordedRequest], Reply]
"""A reply, or a function that builds one from the request."""


class LoopbackServer:
    """A scripted HTTP server on ``127.0.0.1`` and a free port. Use it as a context manager."""

    def __init__(self) -> None:
        self._listener: socket.socket | None = None
        self._port = 0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._replies: list[ReplySource] = []
        self._requests: list[RecordedRequest] = []
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self.errors: list[str] = []
        """Problems the server met (a request with no reply scripted, a malformed request)."""

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> LoopbackServer:
        """Bind and start accepting connections."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.settimeout(_POLL * 5)
        self._listener = listener
        self._port = listener.getsockname()[1]
        self._spawn(self._accept_loop)
        return self

    def stop(self) -> None:
        """Stop accepting, wake every paused reply, and wait for the threads to finish."""
        self._stopping.set()
        if self._listener is not None:
            # Wakes a thread blocked in accept() at once (Linux); its timeout is the fallback.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
        for thread in list(self._threads):
            thread.join(timeout=5)
        if self._listener is not None:
            self._listener.close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- scripting and inspection ----------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, what OpenAI-style clients take as their base URL."""
        return f"{self.url}/v1"

    def add(self, *replies: ReplySource) -> None:
        """Queue replies; each incoming request takes the next one."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> bool:
        """Block until ``count`` requests have arrived; ``False`` on timeout."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self._requests) >= count, timeout=timeout)

    def assert_consumed(self) -> None:
        """Fail if the server met a problem or scripted replies were left unused."""
        with self._lock:
            errors, left = list(self.errors), len(self._replies)
        if errors:
            raise AssertionError("loopback server errors: " + "; ".join(errors))
        if left:
            raise AssertionError(f"loopback server: {left} scripted reply(ies) never requested")

    # -- internals -------------------------------------------------------------------------

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name="loopback")
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.setblocking(True)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._spawn(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        try:
            read = self._read_request(conn)
            if read is None:
                return
            request, source = read
            reply = self._reply_from(source, request)
            _Responder(conn, request, self._stopping).run(reply)
        except OSError:
            pass  # the client went away; the responder already recorded what it saw
        finally:
            conn.close()

    def _read_request(self, conn: socket.socket) -> tuple[RecordedRequest, Any] | None:
        """The next request on ``conn`` and the scripted reply it takes (``None`` when none is
        left), or ``None`` when ``conn`` carried no request. Recording a request and taking its
        reply is one step: replies go to requests in the order the requests were recorded,
        whichever thread then serves its request first."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None  # a connection opened and closed without a request
            data += chunk
            if len(data) > _MAX_HEAD:
                self._error("request head too large")
                return None
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self._error(f"{method} {path}: chunked request bodies are not supported")
            return None
        length = int(headers.get("content-length", "0") or 0)
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            rest += chunk
        request = RecordedRequest(method, path, headers, rest[:length])
        with self._arrived:
            self._requests.append(request)
            source = self._replies.pop(0) if self._replies else None
            self._arrived.notify_all()
        return request, source

    def _reply_from(self, source: Any, request: RecordedRequest) -> Reply:
        if source is None:
            message = f"no reply scripted for {request.method} {request.path}"
            self._error(message)
            return Reply.text(500, f"loopback server: {message}")
        return source(request) if callable(source) else source

    def _error(self, message: str) -> None:
        with self._lock:
            self.errors.append(message)


class _Responder:
    """Writes one :class:`Reply` to one connection."""

    def __init__(
        self, conn: socket.socket, request: RecordedRequest, stopping: threading.Event
    ) -> None:
        self._conn = conn
        self._request = request
        self._stopping = stopping

    def run(self, reply: Reply) -> None:
        if reply.drop_before_reply:
            return
        if reply.hold_headers is not None and not self._wait(reply.hold_headers, 10.0):
            return
        streamed = reply.steps is not None
        headers = {**reply.headers, "Connection": "close"}
        if streamed:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(len(reply.body))
        if not self._write(_status_and_headers(reply.status, headers) + reply.body):
            return
        if streamed and self._steps(reply.steps or ()):
            self._write(b"0\r\n\r\n")
        self._close_write()

    def _steps(self, steps: tuple[Step, ...]) -> bool:
        """Run the steps; ``False`` when the connection ended early (dropped or client gone)."""
        for step in steps:
            if isinstance(step, Send):
                if step.data and not self._write(b"%x\r\n%s\r\n" % (len(step.data), step.data)):
                    return False
            elif isinstance(step, WaitFor):
                if not self._wait(step.event, step.timeout):
                    return False
            elif isinstance(step, AwaitDisconnect):
                if self._await_disconnect(step.timeout):
                    return False
            elif isinstance(step, Drop):
                if step.reset:
                    linger = struct.pack("ii", 1, 0)
                    self._conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                return False
        return True

    def _write(self, data: bytes) -> bool:
        try:
            self._conn.sendall(data)
        except OSError:
            self._request.disconnected.set()
            return False
        return True

    def _wait(self, event: threading.Event, timeout: float) -> bool:
        """Block until ``event`` is set; ``False`` if the server stops or the timeout passes."""
        remaining = timeout
        while remaining > 0 and not self._stopping.is_set():
            if event.wait(_POLL):
                return True
            remaining -= _POLL
        return False

    def _await_disconnect(self, timeout: float) -> bool:
        """Block until the client closes its end; ``True`` if it did."""
        remaining = timeout
        while remaining > 0 and not self._stopping.is_set():
            readable, _, _ = select.select([self._conn], [], [], _POLL)
            remaining -= _POLL
            if not readable:
                continue
            try:
                data = self._conn.recv(65536)
            except OSError:
                data = b""
            if not data:
                self._request.disconnected.set()
                return True
        return False

    def _close_write(self) -> None:
        try:
            self._conn.shutdown(socket.SHUT_WR)
        except OSError:
            self._request.disconnected.set()


def _status_and_headers(status: int, headers: Mapping[str, str]) -> bytes:
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Status"
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines.extend(f"{name}: {value}" for name, value in headers.items())
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
