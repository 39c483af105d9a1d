"""An httpx2 transport for plain ``http://`` URLs on asyncio streams, with h11 as the parser.

httpx2's default transport builds an httpcore2 connection pool, which imports anyio, sniffio and
httpcore2's own backends: a large share of a short ``forge ask`` against a local server (Ollama,
vLLM, llama.cpp, a Knowledge Forge on localhost) went to importing and setting them up
(docs/adr/0022-plain-http-transport.md). For ``http`` this transport speaks HTTP/1.1 itself on
``asyncio.open_connection``; ``https`` and HTTP proxies keep httpx2's transport
(:class:`forge_cli.backends._http.SchemeTransport`).

It behaves like httpcore2 where our code can tell: failures are httpx2's exception types, with the
request attached and the same wording for the ones users see ("Server disconnected without
sending a response.", h11's "peer closed connection without sending complete message body ...");
timeouts come from ``request.extensions["timeout"]``; the ``trace`` extension hears the same
names (``connection.connect_tcp.*``, ``http11.send_request_body.complete`` ...). Reads are at
most 64 KiB; h11 bounds a reply's header block; no body is ever buffered whole.

Keep-alive: a connection whose exchange ended cleanly on both sides goes back to an idle pool
for its host and port; a body closed before its end, an error or a cancellation closes it
instead. A reused connection that fails before the first byte of its reply (the server closed it
while idle) is retried once on a new connection, when the request body can be sent again.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import h11
import httpx2

__all__ = ["PlainHTTPTransport"]

READ_SIZE = 64 * 1024
"""The most bytes read from a socket at once."""

MAX_HEAD_BYTES = 100 * 1024
"""The largest reply header block h11 accepts (as httpcore2 sets it)."""

KEEPALIVE_SECONDS = 5.0
"""How long an idle connection is kept for reuse (httpx2's default ``keepalive_expiry``)."""

MAX_IDLE_PER_HOST = 10
"""Idle connections kept per host and port; more are closed."""

_Trace = Callable[[str, dict[str, Any]], Any]


class _Stale(Exception):
    """A reused connection failed before the first byte of its reply (``error`` is why)."""

    def __init__(self, error: httpx2.TransportError) -> None:
        super().__init__(str(error))
        self.error = error


class _Connection:
    """One TCP connection and its h11 state."""

    __slots__ = ("h11", "idle_since", "key", "reader", "received", "writer")

    def __init__(
        self, key: tuple[str, int], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.key = key
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.received = False  # any byte of the current reply
        self.idle_since = 0.0

    def usable(self, now: float) -> bool:
        """Whether this idle connection may carry another request (open, not expired, and the
        server sent nothing since its last reply: bytes there would be taken for the next
        reply)."""
        return (
            now - self.idle_since <= KEEPALIVE_SECONDS
            and not self.writer.is_closing()
            and not self.reader.at_eof()
            and not _buffered(self.reader)
            and not _readable(self.writer.get_extra_info("socket"))
        )

    def close(self) -> None:
        """Close the connection now: the peer sees it before this returns (nothing is flushed),
        the socket itself is released by asyncio on its next turn."""
        transport = self.writer.transport
        if transport.is_closing():
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        transport.abort()

    async def write(self, data: bytes, request: httpx2.Request, timeout: float | None) -> None:
        self.writer.write(data)
        try:
            async with asyncio.timeout(timeout):
                await self.writer.drain()
        except TimeoutError:
            raise httpx2.WriteTimeout("", request=request) from None
        except OSError as exc:
            raise httpx2.WriteError(str(exc), request=request) from exc

    async def send(self, event: h11.Event, request: httpx2.Request, timeout: float | None) -> None:
        try:
            data = self.h11.send(event)
        except h11.LocalProtocolError as exc:
            raise httpx2.LocalProtocolError(str(exc), request=request) from exc
        if data:
            await self.write(data, request, timeout)

    async def next_event(
        self, request: httpx2.Request, timeout: float | None, head: list[int] | None = None
    ) -> Any:
        """h11's next event of the reply, reading (at most :data:`READ_SIZE` at once) as needed.

        ``head``: the bytes read so far for the reply's head (``[n]``, updated). h11 bounds each
        head, not a run of informational (1xx) heads: while no final head has come, every byte
        read belongs to a head, and more than :data:`MAX_HEAD_BYTES` of them is refused.
        """
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise httpx2.RemoteProtocolError(str(exc), request=request) from exc
            if event is not h11.NEED_DATA:
                return event
            if head is not None and head[0] > MAX_HEAD_BYTES:
                raise httpx2.RemoteProtocolError(
                    f"the reply's head, with its informational (1xx) replies, is over "
                    f"{MAX_HEAD_BYTES} bytes",
                    request=request,
                )
            try:
                async with asyncio.timeout(timeout):
                    data = await self.reader.read(READ_SIZE)
            except TimeoutError:
                raise httpx2.ReadTimeout("", request=request) from None
            except OSError as exc:
                raise httpx2.ReadError(str(exc), request=request) from exc
            if data:
                self.received = True
                if head is not None:
                    head[0] += len(data)
            elif self.h11.their_state is h11.SEND_RESPONSE:
                raise httpx2.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request
                )
            self.h11.receive_data(data)


async def _traced(
    trace: _Trace | None, name: str, info: dict[str, Any], step: Callable[[], Any]
) -> Any:
    """``await step()`` announced to the ``trace`` extension as httpcore2 announces its steps."""
    if trace is None:
        return await step()
    await trace(f"{name}.started", info)
    try:
        result = await step()
    except BaseException as exc:
        await trace(f"{name}.failed", {"exception": exc})
        raise
    await trace(f"{name}.complete", {"return_value": result})
    return result


def _buffered(reader: asyncio.StreamReader) -> int:
    """How many bytes ``reader`` received and nobody read yet (asyncio keeps them in
    ``_buffer``; there is no public way to ask)."""
    return len(getattr(reader, "_buffer", b""))


def _readable(sock: Any) -> bool:
    """Whether the socket ``sock`` has bytes (or its end, or an error) waiting, without waiting."""
    if sock is None:
        return False
    try:
        fd = sock.fileno()
        if fd < 0:
            return True
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError):
        return True


class _ReplyStream(httpx2.AsyncByteStream):
    """A reply's body, read from its connection; pools or closes the connection at the end."""

    def __init__(
        self, transport: PlainHTTPTransport, conn: _Connection, request: httpx2.Request
    ) -> None:
        self._transport = transport
        self._conn: _Connection | None = conn
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        if conn is None:
            return
        request = self._request
        trace = request.extensions.get("trace")
        timeout = _timeouts(request).get("read")
        if trace is not None:
            await trace("http11.receive_response_body.started", {"request": request})
        try:
            while True:
                event = await conn.next_event(request, timeout)
                if type(event) is h11.Data:
                    yield bytes(event.data)
                elif type(event) is h11.EndOfMessage or event is h11.PAUSED:
                    break
        except BaseException as exc:  # an error, a cancellation or a consumer that stopped
            self._conn = None
            self._transport._discard(conn)
            if trace is not None and not isinstance(exc, GeneratorExit):
                with contextlib.suppress(Exception):
                    await trace("http11.receive_response_body.failed", {"exception": exc})
            raise
        self._conn = None
        self._transport._release(conn)
        if trace is not None:
            await trace("http11.receive_response_body.complete", {"return_value": None})

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:  # closed before the end of the body: the connection is spoiled
            self._transport._discard(conn)


def _timeouts(request: httpx2.Request) -> dict[str, float | None]:
    timeouts = request.extensions.get("timeout")
    return timeouts if isinstance(timeouts, dict) else {}


class PlainHTTPTransport(httpx2.AsyncBaseTransport):
    """HTTP/1.1 over plain TCP for ``http://`` URLs (see the module docstring)."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._live: set[_Connection] = set()
        self._closed = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` and return its reply with the body still to be read."""
        url = request.url
        if url.scheme != "http":
            raise httpx2.UnsupportedProtocol(
                f"this transport speaks plain http only, not {url.scheme!r}", request=request
            )
        key = (url.raw_host.decode("ascii"), url.port or 80)
        conn = self._take_idle(key)
        if conn is not None:
            try:
                return await self._exchange(conn, request, reused=True)
            except _Stale as stale:
                if not isinstance(request.stream, httpx2.ByteStream):
                    raise stale.error from None  # the body cannot be sent again
        conn = await self._connect(key, request)
        return await self._exchange(conn, request, reused=False)

    async def aclose(self) -> None:
        """Close every connection, idle or carrying a reply."""
        self._closed = True
        live, self._live = self._live, set()
        self._idle.clear()
        for conn in live:
            conn.close()
        for conn in live:
            with contextlib.suppress(Exception):
                await conn.writer.wait_closed()

    def _take_idle(self, key: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if conn.usable(now):
                return conn
            self._discard(conn)
        return None

    def _release(self, conn: _Connection) -> None:
        """Pool ``conn`` if both sides finished the exchange cleanly, else close it."""
        state = conn.h11
        if (
            self._closed
            or state.our_state is not h11.DONE
            or state.their_state is not h11.DONE
            or any(state.trailing_data)  # bytes after the reply's end: never the next reply
        ):
            self._discard(conn)
            return
        state.start_next_cycle()
        idle = self._idle.setdefault(conn.key, [])
        if len(idle) >= MAX_IDLE_PER_HOST:
            self._discard(conn)
            return
        conn.idle_since = time.monotonic()
        idle.append(conn)

    def _discard(self, conn: _Connection) -> None:
        self._live.discard(conn)
        conn.close()

    async def _connect(self, key: tuple[str, int], request: httpx2.Request) -> _Connection:
        host, port = key
        trace = request.extensions.get("trace")
        timeout = _timeouts(request).get("connect")

        async def connect() -> _Connection:
            try:
                async with asyncio.timeout(timeout):
                    reader, writer = await asyncio.open_connection(
                        host, port, limit=READ_SIZE, happy_eyeballs_delay=0.25
                    )
            except TimeoutError:
                raise httpx2.ConnectTimeout("", request=request) from None
            except socket.gaierror as exc:  # the name did not resolve
                raise httpx2.ConnectError(str(exc), request=request) from exc
            except OSError as exc:  # refused, unreachable: worded as httpcore2 (anyio) words it
                failed = "All connection attempts failed"
                raise httpx2.ConnectError(failed, request=request) from exc
            sock = writer.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Connection(key, reader, writer)
            self._live.add(conn)
            return conn

        info = {"host": host, "port": port, "local_address": None, "timeout": timeout}
        conn: _Connection = await _traced(trace, "connection.connect_tcp", info, connect)
        return conn

    async def _exchange(
        self, conn: _Connection, request: httpx2.Request, *, reused: bool
    ) -> httpx2.Response:
        """Send ``request`` on ``conn`` and read the reply's head.

        Raises :class:`_Stale` when a ``reused`` connection fails before any byte of the reply.
        """
        conn.received = False
        try:
            return await self._request_reply(conn, request)
        except BaseException as exc:
            self._discard(conn)
            if (
                reused
                and not conn.received
                and isinstance(
                    exc, httpx2.ReadError | httpx2.WriteError | httpx2.RemoteProtocolError
                )
            ):
                raise _Stale(exc) from exc
            raise

    async def _request_reply(self, conn: _Connection, request: httpx2.Request) -> httpx2.Response:
        trace = request.extensions.get("trace")
        timeouts = _timeouts(request)
        write_timeout = timeouts.get("write")
        info = {"request": request}

        async def send_head() -> None:
            try:  # h11 checks the head when it is built (a header value with a line break ...)
                head = h11.Request(
                    method=request.method,
                    target=request.url.raw_path,
                    headers=request.headers.raw,
                )
            except h11.LocalProtocolError as exc:
                raise httpx2.LocalProtocolError(str(exc), request=request) from exc
            await conn.send(head, request, write_timeout)

        async def send_body() -> None:
            assert isinstance(request.stream, httpx2.AsyncByteStream)
            async for chunk in request.stream:
                if chunk:
                    await conn.send(h11.Data(data=chunk), request, write_timeout)
            await conn.send(h11.EndOfMessage(), request, write_timeout)

        write_failure: httpx2.WriteError | None = None
        try:
            await _traced(trace, "http11.send_request_headers", info, send_head)
            await _traced(trace, "http11.send_request_body", info, send_body)
        except httpx2.WriteError as exc:
            # The server may have answered and closed before reading the whole request (an
            # error reply): read it, as httpcore2 does; if there is none, this is the failure.
            write_failure = exc

        read_timeout = timeouts.get("read")

        async def receive_head() -> tuple[bytes, int, bytes, list[tuple[bytes, bytes]]]:
            head = [0]
            while True:
                event = await conn.next_event(request, read_timeout, head)
                if type(event) is h11.Response:
                    # h11 bounds a head it is still waiting for; one that came whole in a read
                    # could pass the bound by up to a read, or not, as the server's writes fell
                    if head[0] > MAX_HEAD_BYTES and (
                        head[0] - len(conn.h11.trailing_data[0]) > MAX_HEAD_BYTES
                    ):
                        raise httpx2.RemoteProtocolError(
                            f"the reply's header block is over {MAX_HEAD_BYTES} bytes",
                            request=request,
                        )
                    return (
                        b"HTTP/" + event.http_version,
                        event.status_code,
                        event.reason,
                        event.headers.raw_items(),
                    )
                # an informational (1xx) reply: the real one follows

        try:
            version, status, reason, headers = await _traced(
                trace, "http11.receive_response_headers", info, receive_head
            )
        except httpx2.TransportError:
            if write_failure is not None and not conn.received:
                raise write_failure from None
            raise
        return httpx2.Response(
            status,
            headers=headers,
            stream=_ReplyStream(self, conn, request),
            extensions={"http_version": version, "reason_phrase": reason},
        )
