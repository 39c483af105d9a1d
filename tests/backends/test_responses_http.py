"""ResponsesBackend against a real loopback HTTP server, plus the retry-delay arithmetic."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx2
import pytest

import forge_cli.backends as backends
from forge_cli.backends import ResponsesBackend, RetryPolicy
from forge_cli.backends.http.client import (
    ErrorContext,
    Secret,
    display_url,
    map_transport_error,
    parse_retry_after,
)
from forge_cli.errors import (
    AuthError,
    BackendConnectionError,
    BackendHTTPError,
    BackendTimeoutError,
    ConfigError,
    ProtocolError,
)
from forge_cli.protocol import Request, StreamEvent
from forge_cli.stream.builder import SnapshotBuilder
from helpers.loopback import (
    AwaitDisconnect,
    Drop,
    LoopbackServer,
    RecordedRequest,
    Reply,
    Step,
    WaitFor,
    sse,
    sse_done,
)

pytestmark = pytest.mark.anyio

KEY = "sk-test-SECRET-0123456789"
ENV = "FORGE_TEST_API_KEY"


class SleepRecorder:
    """An injected sleep: records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def make_backend(server: LoopbackServer, sleep: SleepRecorder, **options: Any) -> ResponsesBackend:
    options.setdefault("api_key_env", ENV)
    return ResponsesBackend(server.base_url, sleep=sleep, **options)


def created(response_id: str = "resp_1") -> dict[str, Any]:
    return {
        "type": "response.created",
        "response": {
            "id": response_id,
            "object": "response",
            "status": "in_progress",
            "output": [],
        },
    }


def completed(response_id: str = "resp_1", text: str = "Hi") -> dict[str, Any]:
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return {
        "type": "response.completed",
        "response": {
            "id": response_id,
            "object": "response",
            "status": "completed",
            "output": [message],
        },
    }


def text_events(*deltas: str) -> list[dict[str, Any]]:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress"}
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    events.extend(
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": delta,
        }
        for delta in deltas
    )
    return events


def ok_stream() -> Reply:
    return Reply.sse([sse(created()), sse(completed()), sse_done()])


async def collect(backend: ResponsesBackend, request: Request, into: list[StreamEvent]) -> None:
    async for event in backend.stream(request):
        into.append(event)


async def observed_disconnect(request: RecordedRequest) -> bool:
    """Wait (without blocking the event loop) until the server sees the client leave."""
    return await asyncio.to_thread(request.disconnected.wait, 5)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# -- requests ------------------------------------------------------------------------------


async def test_stream_sends_body_headers_and_yields_events(loopback: LoopbackServer) -> None:
    loopback.add(ok_stream())
    sleep = SleepRecorder()
    request = Request(model="m", input="hello", previous_response_id="resp_0", store=True)
    backend = ResponsesBackend(
        loopback.base_url + "/",  # a trailing slash is tolerated
        api_key=KEY,
        headers={"X-Extra": "yes"},
        store=False,
        sleep=sleep,
    )
    async with backend:
        events = [event async for event in backend.stream(request)]

    assert [event.type for event in events] == ["response.created", "response.completed", "done"]
    (seen,) = loopback.requests
    assert (seen.method, seen.path) == ("POST", "/v1/responses")
    body = seen.json()
    assert body["stream"] is True
    assert body["store"] is False  # the backend option overrides the request's store=True
    assert body["previous_response_id"] == "resp_0"
    assert body["model"] == "m"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["accept"] == "text/event-stream"
    assert seen.headers["x-extra"] == "yes"
    assert sleep.delays == []


async def test_key_comes_from_env_var_and_is_absent_without_it(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    loopback.add(ok_stream(), ok_stream())
    monkeypatch.setenv(ENV, "sk-from-env")
    async with make_backend(loopback, SleepRecorder()) as backend:
        await collect(backend, Request(model="m", input="x"), [])
    monkeypatch.delenv(ENV)
    async with make_backend(loopback, SleepRecorder()) as backend:
        await collect(backend, Request(model="m", input="x"), [])
    first, second = loopback.requests
    assert first.headers["authorization"] == "Bearer sk-from-env"
    assert "authorization" not in second.headers
    assert "store" not in second.json()  # no store option: the request's (unset) value stands


# -- retries before the first byte ---------------------------------------------------------


async def test_429_with_retry_after_is_retried_after_the_requested_delay(
    loopback: LoopbackServer,
) -> None:
    error = {"error": {"message": "Rate limit reached", "type": "rate_limit"}}
    loopback.add(Reply.json(429, error, headers={"Retry-After": "2"}), ok_stream())
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep) as backend:
        events: list[StreamEvent] = []
        await collect(backend, Request(model="m", input="x"), events)
    assert sleep.delays == [2.0]
    assert len(loopback.requests) == 2
    assert events[-2].type == "response.completed"


async def test_retry_after_ms_wins_over_retry_after(loopback: LoopbackServer) -> None:
    headers = {"Retry-After": "5", "retry-after-ms": "250"}
    loopback.add(Reply.json(429, {}, headers=headers), ok_stream())
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep) as backend:
        await collect(backend, Request(model="m", input="x"), [])
    assert sleep.delays == [0.25]


async def test_503_is_retried_with_backoff(loopback: LoopbackServer) -> None:
    loopback.add(Reply.text(503, "overloaded"), ok_stream())
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep) as backend:
        await collect(backend, Request(model="m", input="x"), [])
    assert len(loopback.requests) == 2
    (delay,) = sleep.delays
    assert 0.375 <= delay <= 0.5


async def test_retries_give_up_with_the_last_status(loopback: LoopbackServer) -> None:
    busy = {"error": {"message": "engine busy"}}
    loopback.add(*(Reply.json(503, busy) for _ in range(3)))
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep) as backend:
        with pytest.raises(BackendHTTPError) as info:
            await collect(backend, Request(model="m", input="x"), [])
    assert len(loopback.requests) == 3
    assert len(sleep.delays) == 2
    assert 0.75 <= sleep.delays[1] <= 1.0
    error = info.value
    assert error.status_code == 503
    assert error.server_message == "engine busy"
    assert f"{loopback.base_url}/responses returned HTTP 503: engine busy" in error.one_line()


@pytest.mark.parametrize(
    ("status", "headers"),
    [
        (429, {"Retry-After": "300"}),  # longer than 120 s: give up at once
        (503, {"x-should-retry": "false"}),  # the server says no
        (400, {}),  # not a retryable status
    ],
)
async def test_not_retried(loopback: LoopbackServer, status: int, headers: dict[str, str]) -> None:
    loopback.add(Reply.json(status, {"error": {"message": "no"}}, headers=headers))
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep) as backend:
        with pytest.raises(BackendHTTPError) as info:
            await collect(backend, Request(model="m", input="x"), [])
    assert info.value.status_code == status
    assert len(loopback.requests) == 1
    assert sleep.delays == []


async def test_x_should_retry_true_retries_a_400(loopback: LoopbackServer) -> None:
    loopback.add(Reply.json(400, {}, headers={"x-should-retry": "true"}), ok_stream())
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep) as backend:
        await collect(backend, Request(model="m", input="x"), [])
    assert len(loopback.requests) == 2


async def test_connection_closed_before_reply_is_retried(loopback: LoopbackServer) -> None:
    loopback.add(Reply.drop(), ok_stream())
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep) as backend:
        events: list[StreamEvent] = []
        await collect(backend, Request(model="m", input="x"), events)
    assert len(loopback.requests) == 2
    assert len(sleep.delays) == 1
    assert events[0].type == "response.created"


async def test_connection_refused_is_retried_then_reported() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    sleep = SleepRecorder()
    async with ResponsesBackend(url, api_key=KEY, sleep=sleep) as backend:
        with pytest.raises(BackendConnectionError) as info:
            await collect(backend, Request(model="m", input="x"), [])
    assert not isinstance(info.value, BackendTimeoutError)
    assert len(sleep.delays) == 2
    assert info.value.one_line().startswith(f"could not connect to {url}/responses")


# -- once streaming has started ------------------------------------------------------------


async def test_no_retry_after_the_first_byte(loopback: LoopbackServer) -> None:
    loopback.add(Reply.sse([sse(created()), *map(sse, text_events("a")), Drop()]))
    sleep = SleepRecorder()
    policy = RetryPolicy(max_retries=5)
    events: list[StreamEvent] = []
    async with make_backend(loopback, sleep, retry=policy) as backend:
        with pytest.raises(ProtocolError) as info:
            await collect(backend, Request(model="m", input="x"), events)
    assert len(loopback.requests) == 1
    assert sleep.delays == []
    assert [event.type for event in events][:1] == ["response.created"]
    assert len(events) == 4
    assert info.value.one_line().startswith("the stream ended early:")
    assert loopback.base_url in info.value.one_line()


async def test_mid_stream_reset_keeps_the_partial_snapshot(loopback: LoopbackServer) -> None:
    frames: list[Step] = [sse(created()), *map(sse, text_events("Hel", "lo")), Drop(reset=True)]
    loopback.add(Reply.sse(frames))
    builder = SnapshotBuilder()

    async def fold(backend: ResponsesBackend) -> None:
        async for event in backend.stream(Request(model="m", input="x")):
            builder.feed(event)

    async with make_backend(loopback, SleepRecorder()) as backend:
        with pytest.raises(ProtocolError, match="the stream ended early"):
            await fold(backend)
    assert builder.snapshot.output_text == "Hello"
    assert builder.finish().output_text == "Hello"


async def test_drop_after_terminal_event_is_not_an_error(loopback: LoopbackServer) -> None:
    loopback.add(Reply.sse([sse(created()), sse(completed()), Drop()]))
    events: list[StreamEvent] = []
    async with make_backend(loopback, SleepRecorder()) as backend:
        await collect(backend, Request(model="m", input="x"), events)
    assert [event.type for event in events] == ["response.created", "response.completed"]


async def test_idle_read_timeout_fires(loopback: LoopbackServer) -> None:
    gate = threading.Event()
    loopback.add(Reply.sse([sse(created()), WaitFor(gate), sse(completed())]))
    events: list[StreamEvent] = []
    try:
        async with make_backend(loopback, SleepRecorder(), read_timeout=0.5) as backend:
            with pytest.raises(BackendTimeoutError) as info:
                await collect(backend, Request(model="m", input="x"), events)
    finally:
        gate.set()
    assert [event.type for event in events] == ["response.created"]
    assert "idle read timeout" in info.value.one_line()
    assert "after 0.5 s" in info.value.one_line()
    assert len(loopback.requests) == 1


async def test_read_timeout_before_headers_is_not_retried(loopback: LoopbackServer) -> None:
    gate = threading.Event()
    loopback.add(Reply.sse([sse(created())], hold_headers=gate))
    sleep = SleepRecorder()
    try:
        async with make_backend(loopback, sleep, read_timeout=0.5) as backend:
            with pytest.raises(BackendTimeoutError):
                await collect(backend, Request(model="m", input="x"), [])
    finally:
        gate.set()
    assert sleep.delays == []
    assert len(loopback.requests) == 1


# -- cancellation --------------------------------------------------------------------------


def endless_stream() -> Reply:
    """Two events, then the server waits for the client to leave; the rest is never sent."""
    rest = [sse(event) for event in text_events(*"more text")]
    return Reply.sse([sse(created()), *map(sse, text_events("a")[:1]), AwaitDisconnect(), *rest])


async def test_aclose_closes_the_connection(loopback: LoopbackServer) -> None:
    loopback.add(endless_stream())
    async with make_backend(loopback, SleepRecorder()) as backend:
        stream = backend.stream(Request(model="m", input="x"))
        assert (await anext(stream)).type == "response.created"
        assert (await anext(stream)).type == "response.output_item.added"
        await stream.aclose()  # type: ignore[attr-defined]  # an async generator
        (seen,) = loopback.requests
        # Block the event loop on purpose: the socket must be closed by the time aclose()
        # returns, not later by a task or a garbage-collection finalizer.
        assert seen.disconnected.wait(5), "the server never saw the client disconnect"


@pytest.mark.parametrize("mode", ["awaiting-next-event", "busy-rendering", "busy-and-held"])
async def test_cancelling_the_consumer_closes_the_connection(
    loopback: LoopbackServer, mode: str
) -> None:
    """Cancel while the consumer waits for bytes, or while it awaits something else between
    events: the generator is then suspended at ``yield`` and must still release the socket, even
    when someone else keeps a reference to it (so it is never garbage-collected)."""
    loopback.add(endless_stream())
    events: list[StreamEvent] = []
    kept: list[AsyncIterator[StreamEvent]] = []
    two_events = asyncio.Event()

    async def consume(backend: ResponsesBackend) -> None:
        stream = backend.stream(Request(model="m", input="x"))
        if mode == "busy-and-held":
            kept.append(stream)  # outlives the task
        async for event in stream:
            events.append(event)
            if len(events) == 2:
                two_events.set()
                if mode != "awaiting-next-event":
                    await asyncio.Event().wait()  # "rendering" until cancelled

    async with make_backend(loopback, SleepRecorder()) as backend:
        task = asyncio.create_task(consume(backend))
        await two_events.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        (seen,) = loopback.requests
        assert await observed_disconnect(seen), "the server never saw the client disconnect"
    assert len(events) == 2


# -- errors and secrets --------------------------------------------------------------------


async def test_401_is_an_auth_error_naming_the_env_var_without_the_key(
    loopback: LoopbackServer,
) -> None:
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}.", "code": "invalid_api_key"}}
    loopback.add(Reply.json(401, echo))
    sleep = SleepRecorder()
    async with make_backend(loopback, sleep, api_key=KEY) as backend:
        assert KEY not in repr(backend)
        with pytest.raises(AuthError) as info:
            await collect(backend, Request(model="m", input="x"), [])
    error = info.value
    assert error.status_code == 401
    assert error.env_var == ENV
    assert ENV in error.one_line()
    assert loopback.base_url in error.one_line()
    for text in (error.one_line(), str(error), repr(error), error.server_message or ""):
        assert KEY not in text
    assert "Incorrect API key provided: ***" in error.one_line()
    assert loopback.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert sleep.delays == []


async def test_403_without_a_key_says_the_env_var_is_not_set(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    loopback.add(Reply.text(403, "forbidden"))
    async with make_backend(loopback, SleepRecorder()) as backend:
        with pytest.raises(AuthError) as info:
            await collect(backend, Request(model="m", input="x"), [])
    assert f"{ENV} is not set" in info.value.one_line()


async def test_server_text_is_one_sanitized_truncated_line(loopback: LoopbackServer) -> None:
    hostile = "\x1b[31mboom\x07\nsecond line\r\n" + "x" * 2000
    loopback.add(Reply.text(500, hostile, headers={"x-should-retry": "false"}))
    async with make_backend(loopback, SleepRecorder()) as backend:
        with pytest.raises(BackendHTTPError) as info:
            await collect(backend, Request(model="m", input="x"), [])
    line = info.value.one_line()
    assert "\x1b" not in line
    assert "\x07" not in line
    assert "\n" not in line
    assert "boom" in line
    assert "second line" in line
    assert len(info.value.server_message or "") <= 300


def test_secret_and_error_context_hide_the_key() -> None:
    secret = Secret(KEY)
    ctx = ErrorContext(url="http://h/v1", env_var=ENV, secrets=(secret,))
    assert KEY not in repr(secret)
    assert KEY not in str(secret)
    assert KEY not in repr(ctx)
    assert ctx.clean(f"key={KEY}") == "key=***"


async def test_a_web_page_instead_of_a_stream_is_a_protocol_error(
    loopback: LoopbackServer,
) -> None:
    loopback.add(Reply(headers={"Content-Type": "text/html"}, body=b"<html>UI</html>"))
    async with make_backend(loopback, SleepRecorder()) as backend:
        with pytest.raises(ProtocolError, match="web page") as info:
            await collect(backend, Request(model="m", input="x"), [])
    assert "/v1" in (info.value.hint or "")


def test_timeouts_map_to_timeout_errors_naming_the_url_and_limit() -> None:
    ctx = ErrorContext(url="http://h:1/v1/responses")
    timeouts = {"connect": 3.0, "read": 7.0, "write": 7.0, "pool": 3.0}
    request = httpx2.Request("POST", "http://h:1/v1/responses", extensions={"timeout": timeouts})
    connect = map_transport_error(httpx2.ConnectTimeout("slow", request=request), ctx, "connect")
    idle = map_transport_error(httpx2.ReadTimeout("slow", request=request), ctx, "stream")
    assert isinstance(connect, BackendTimeoutError)
    assert connect.message == "timed out after 3 s connecting to http://h:1/v1/responses"
    assert isinstance(idle, BackendTimeoutError)
    assert idle.message == "no data from http://h:1/v1/responses after 7 s (idle read timeout)"
    dropped = map_transport_error(httpx2.ReadError("reset", request=request), ctx, "stream")
    assert type(dropped) is ProtocolError


def test_urls_in_messages_hide_credentials_and_queries() -> None:
    assert display_url("https://user:pw@example.com:8443/v1?key=s#f") == (
        "https://example.com:8443/v1"
    )


def test_bad_base_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not an http"):
        ResponsesBackend("localhost:8000/v1")


# -- retrieve, models, non-streaming replies -----------------------------------------------


async def test_retrieve_and_list_models(loopback: LoopbackServer) -> None:
    response = completed("resp/9", text="stored")["response"]
    models = {"object": "list", "data": [{"id": "gpt-x", "object": "model"}, {"id": "llama"}]}
    loopback.add(Reply.json(200, response), Reply.json(200, models))
    async with make_backend(loopback, SleepRecorder(), api_key=KEY) as backend:
        got = await backend.retrieve("resp/9")
        names = await backend.list_models()
    assert got.output_text == "stored"
    assert names == ["gpt-x", "llama"]
    first, second = loopback.requests
    assert (first.method, first.path) == ("GET", "/v1/responses/resp%2F9")
    assert (second.method, second.path) == ("GET", "/v1/models")
    assert second.headers["authorization"] == f"Bearer {KEY}"


async def test_retrieve_404_and_bad_json(loopback: LoopbackServer) -> None:
    loopback.add(
        Reply.json(404, {"error": {"message": "No response found"}}),
        Reply.text(200, "not json", headers={"Content-Type": "application/json"}),
    )
    async with make_backend(loopback, SleepRecorder()) as backend:
        with pytest.raises(BackendHTTPError, match="No response found") as info:
            await backend.retrieve("resp_x")
        assert info.value.status_code == 404
        with pytest.raises(ProtocolError, match="valid JSON"):
            await backend.list_models()


async def test_a_json_reply_to_a_stream_request_becomes_one_terminal_event(
    loopback: LoopbackServer,
) -> None:
    loopback.add(Reply.json(200, completed(text="whole")["response"]))
    events: list[StreamEvent] = []
    async with make_backend(loopback, SleepRecorder()) as backend:
        await collect(backend, Request(model="m", input="x"), events)
    (event,) = events
    assert event.type == "response.completed"
    assert event.data["response"]["status"] == "completed"


# -- retry policy arithmetic ---------------------------------------------------------------


def test_backoff_doubles_from_half_a_second_and_caps_at_eight() -> None:
    policy = RetryPolicy()
    assert [policy.backoff(n, rand=0.0) for n in range(7)] == [0.5, 1, 2, 4, 8, 8, 8]
    assert policy.backoff(0, rand=1.0) == pytest.approx(0.375)  # up to 25 % jitter off
    assert policy.backoff(3, rand=0.5) == pytest.approx(4 * 0.875)
    assert 0.375 <= policy.backoff(0) <= 0.5


def test_delay_for_stops_after_max_retries() -> None:
    policy = RetryPolicy(max_retries=2)
    assert policy.delay_for(0, rand=0.0) == 0.5
    assert policy.delay_for(1, rand=0.0) == 1.0
    assert policy.delay_for(2, rand=0.0) is None
    assert RetryPolicy(max_retries=0).delay_for(0) is None


def test_delay_for_honours_retry_after() -> None:
    policy = RetryPolicy()
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert policy.delay_for(0, {"retry-after": "3"}) == 3.0
    assert policy.delay_for(0, {"retry-after": "1.5"}) == 1.5
    assert policy.delay_for(0, {"retry-after": date}, now=now) == pytest.approx(30.0)
    assert policy.delay_for(0, {"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert policy.delay_for(0, {"retry-after": "120"}) == 120.0
    assert policy.delay_for(0, {"retry-after": "121"}) is None
    # zero, negative, past dates and junk fall back to the exponential backoff
    for value in ("0", "-4", "soon", "nan", format_datetime(now - timedelta(seconds=5))):
        assert policy.delay_for(0, {"retry-after": value}, now=now, rand=0.0) == 0.5


def test_parse_retry_after_without_headers() -> None:
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after-ms": "x", "retry-after": "2"}) == 2.0


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (408, {}, True),
        (409, {}, True),
        (429, {}, True),
        (500, {}, True),
        (503, {}, True),
        (400, {}, False),
        (404, {}, False),
        (422, {}, False),
        (503, {"x-should-retry": "false"}, False),
        (400, {"x-should-retry": "true"}, True),
        (400, {"x-should-retry": "maybe"}, False),
    ],
)
def test_retryable_status(status: int, headers: dict[str, str], expected: bool) -> None:
    assert RetryPolicy().retryable_status(status, headers) is expected


def test_retry_policy_rejects_nonsense() -> None:
    with pytest.raises(ConfigError):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ConfigError):
        RetryPolicy(jitter=2.0)


# -- package surface -----------------------------------------------------------------------


def test_exports_resolve_lazily() -> None:
    for name in backends.__all__:
        assert getattr(backends, name) is not None
    with pytest.raises(AttributeError):
        _ = backends.NoSuchBackend
    code = "import sys, forge_cli.backends; print('httpx2' in sys.modules, 'openai' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert result.stdout.split() == ["False", "False"]
