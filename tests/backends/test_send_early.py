"""``ResponsesBackend.send_early``: a request written before its typed Request exists is taken over
by the next ``stream_batches`` with the same body -- one request on the wire, and the retries,
errors and events of an ordinary send (ADR 0020)."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

import pytest

from forge_cli.backends import ResponsesBackend, RetryPolicy
from forge_cli.errors import AuthError, BackendConnectionError, BackendHTTPError, ForgeError
from forge_cli.protocol import Request, StreamEvent
from helpers.loopback import (
    AwaitDisconnect,
    Drop,
    LoopbackServer,
    Reply,
    WaitFor,
    responses_answer,
    sse,
)

pytestmark = pytest.mark.anyio

KEY = "sk-early-SECRET-0123456789"


def _done(text: str) -> Reply:
    return Reply.sse(responses_answer(text))


def _request(text: str = "hi", **fields: Any) -> Request:
    return Request(model="m", input=[{"role": "user", "content": text}], stream=True, **fields)


async def _no_sleep(_: float) -> None:
    return None


async def _events(backend: ResponsesBackend, request: Request) -> list[StreamEvent]:
    return [event async for batch in backend.stream_batches(request) for event in batch]


async def _run(
    server: LoopbackServer, request: Request, *, early: Request | None, **options: Any
) -> list[StreamEvent] | ForgeError:
    backend = ResponsesBackend(server.base_url, api_key=KEY, sleep=_no_sleep, **options)
    try:
        if early is not None:
            await backend.send_early(early.to_wire())
        return await _events(backend, request)
    except ForgeError as exc:
        return exc
    finally:
        await backend.aclose()


@pytest.mark.parametrize("dialect", ["openai", "knowledge-forge"])
@pytest.mark.parametrize("store", [None, False])
async def test_the_same_request_is_sent_once_and_streams_as_usual(
    dialect: str, store: bool | None
) -> None:
    request = _request(effort="low", temperature=0.5)
    bodies = []
    results = []
    for early in (None, request):
        with LoopbackServer() as server:
            server.add(_done("ok"))
            results.append(await _run(server, request, early=early, dialect=dialect, store=store))
            [sent] = server.requests
            bodies.append(sent.body)
    assert bodies[0] == bodies[1]  # byte for byte, key order included
    assert results[0] == results[1]
    assert [event.type for event in results[1]] == [  # type: ignore[union-attr]
        "response.output_text.delta",
        "response.completed",
    ]


async def test_send_early_returns_once_the_body_is_written() -> None:
    with LoopbackServer() as server:
        gate = threading.Event()
        done = sse({"type": "response.completed", "response": {}})
        server.add(Reply.sse([done], hold_headers=gate))
        backend = ResponsesBackend(server.base_url, api_key=KEY)
        try:
            await backend.send_early(_request().to_wire())  # no reply has started
            assert server.wait_for_requests(1)
            gate.set()
            events = await _events(backend, _request())
        finally:
            await backend.aclose()
    assert [event.type for event in events] == ["response.completed"]
    assert len(server.requests) == 1


async def test_retries_of_the_early_send_are_the_usual_ones() -> None:
    with LoopbackServer() as server:
        server.add(Reply.text(503, "busy"), _done("ok"))
        events = await _run(server, _request(), early=_request())
        assert len(server.requests) == 2
        assert server.requests[0].body == server.requests[1].body
    assert not isinstance(events, ForgeError)
    assert events[-1].type == "response.completed"


@pytest.mark.parametrize(
    "reply",
    [
        Reply.json(401, {"error": {"message": f"bad key {KEY}"}}),
        Reply.json(400, {"error": {"message": "unknown_parameter: effort"}}),
        Reply.text(500, "down"),
    ],
)
async def test_errors_of_the_early_send_are_the_usual_ones(reply: Reply) -> None:
    errors = []
    lines = []
    for early in (None, _request()):
        with LoopbackServer() as server:
            server.add(reply, reply, reply)
            errors.append(await _run(server, _request(), early=early))
            lines.append(str(errors[-1]).replace(server.base_url, "URL"))
    assert isinstance(errors[0], BackendHTTPError)
    assert type(errors[0]) is type(errors[1])
    assert lines[0] == lines[1]
    assert KEY not in lines[1]
    if isinstance(errors[1], AuthError):
        assert errors[1].env_var == "OPENAI_API_KEY"


async def test_a_failed_connection_is_reported_once_as_usual() -> None:
    with LoopbackServer() as server:
        url = server.base_url
    backend = ResponsesBackend(url, sleep=_no_sleep)  # nothing listens there any more
    try:
        await backend.send_early(_request().to_wire())  # returns: the attempt is over
        with pytest.raises(BackendConnectionError, match="could not connect"):
            await _events(backend, _request())
    finally:
        await backend.aclose()


@pytest.mark.parametrize(
    ("early", "wanted"),
    [
        ({"model": "m", "input": [{"role": "user", "content": "first"}]}, _request("second")),
        # equal as Python values, not as JSON: 1 and 1.0 are sent differently
        (
            {"model": "m", "input": [{"role": "user", "content": "hi"}], "temperature": 1},
            _request("hi", temperature=1.0),
        ),
    ],
)
async def test_a_different_request_cancels_the_early_send_and_is_sent_itself(
    early: dict[str, Any], wanted: Request
) -> None:
    with LoopbackServer() as server:
        gate = threading.Event()
        server.add(Reply.sse([], hold_headers=gate), _done("second"))
        backend = ResponsesBackend(server.base_url, api_key=KEY)
        try:
            await backend.send_early(early)
            # The early request has its reply before the second one is sent: two server threads
            # would otherwise race for the scripted replies.
            assert await asyncio.to_thread(server.wait_for_requests, 1)
            events = await _events(backend, wanted)
        finally:
            gate.set()
            await backend.aclose()
        first, second = server.requests
    assert first.body != second.body
    assert second.json() == {**wanted.to_wire(), "stream": True}
    assert events[0].data["delta"] == "second"


async def test_closing_the_backend_drops_an_early_send_nobody_took() -> None:
    with LoopbackServer() as server:
        gate = threading.Event()
        server.add(Reply.sse([], hold_headers=gate))
        backend = ResponsesBackend(server.base_url)
        await backend.send_early(_request().to_wire())
        await backend.aclose()  # cancels the send waiting for its reply
        gate.set()
        assert backend._early is None
        assert server.wait_for_requests(1)


async def test_closing_the_backend_collects_a_failed_early_send() -> None:
    with LoopbackServer() as server:
        url = server.base_url
    backend = ResponsesBackend(url, retry=RetryPolicy(max_retries=0))
    await backend.send_early(_request().to_wire())  # the attempt failed; nobody takes it over
    await backend.aclose()  # its error is retrieved here, not raised, not left unretrieved
    assert backend._early is None


# --- reading the early send's reply while the models are imported (ADR-0018, ADR-0020) ----------


def _three_parts(*, drop: bool = False, gate: threading.Event | None = None) -> Reply:
    """A reply whose deltas arrive in separate network reads (a gate after the first when
    given), optionally cut off after them."""
    steps: list[Any] = [sse({"type": "response.output_text.delta", "delta": "One"})]
    if gate is not None:
        steps.append(WaitFor(gate))
    steps += [
        sse({"type": "response.output_text.delta", "delta": " two"}),
        sse({"type": "response.output_text.delta", "delta": " three"}),
    ]
    if drop:
        steps.append(Drop())
    else:
        steps += responses_answer("One two three")[-1:]  # response.completed
    return Reply.sse(steps)


async def _read_early_then_stream(
    server: LoopbackServer, **fields: Any
) -> tuple[list[list[StreamEvent]], ForgeError | None]:
    """``send_early``, an early reader offering batches to the (patched) first-paint preview,
    then ``stream_batches`` taking the send over."""
    backend = ResponsesBackend(server.base_url, api_key=KEY, sleep=_no_sleep)
    request = _request(**fields)
    busy: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    batches: list[list[StreamEvent]] = []
    try:
        await backend.send_early(request.to_wire())
        backend.read_early_while(busy)
        async for batch in backend.stream_batches(request):
            batches.append(batch)
        return batches, None
    except ForgeError as exc:
        return batches, exc
    finally:
        busy.set_result(None)
        await backend.aclose()


async def test_batches_read_early_are_yielded_first_and_the_rest_follows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    offered: list[Any] = []
    painted = asyncio.Event()

    def preview(batch: Any) -> bool:  # shows the first batch, then asks to fold
        offered.append(batch)
        painted.set()
        return False

    monkeypatch.setattr("forge_cli._lazy.first_paint", preview)
    gate = threading.Event()
    with LoopbackServer() as server:
        server.add(_three_parts(gate=gate))
        reader = asyncio.ensure_future(_read_early_then_stream(server))
        await painted.wait()  # the early reader has the first read (the server waits on the gate)
        gate.set()
        batches, error = await reader
        assert len(server.requests) == 1
    assert error is None
    assert batches[0] is offered[0]  # the very batch the preview painted, not a second read
    assert len(offered) == 1
    deltas = [e.data["delta"] for b in batches for e in b if e.type.endswith(".delta")]
    assert deltas == ["One", " two", " three"]
    assert batches[-1][-1].type == "response.completed"


async def test_a_stream_read_whole_early_is_yielded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    offered: list[Any] = []

    def preview(batch: Any) -> bool:  # keeps reading to the end
        offered.append(batch)
        return True

    monkeypatch.setattr("forge_cli._lazy.first_paint", preview)
    with LoopbackServer() as server:
        server.add(_three_parts())
        batches, error = await _read_early_then_stream(server)
    assert error is None
    assert [id(b) for b in batches] == [id(b) for b in offered]
    assert sum(len(b) for b in batches) == 4


async def test_an_error_met_while_reading_early_comes_after_what_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("forge_cli._lazy.first_paint", lambda batch: True)
    with LoopbackServer() as server:
        server.add(_three_parts(drop=True))
        batches, error = await _read_early_then_stream(server)
    with LoopbackServer() as server:  # the same reply without an early reader
        server.add(_three_parts(drop=True))
        plain = await _run(server, _request(), early=_request())
    deltas = [e.data["delta"] for b in batches for e in b if e.type.endswith(".delta")]
    assert deltas == ["One", " two", " three"]
    assert isinstance(error, ForgeError)
    assert isinstance(plain, ForgeError)
    assert type(error) is type(plain)
    assert re.sub(r":\d+/", ":PORT/", str(error)) == re.sub(r":\d+/", ":PORT/", str(plain))


async def test_an_early_reader_nobody_took_over_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("forge_cli._lazy.first_paint", lambda batch: False)
    gate = threading.Event()
    with LoopbackServer() as server:
        server.add(_three_parts(gate=gate))
        backend = ResponsesBackend(server.base_url, api_key=KEY, sleep=_no_sleep)
        busy: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await backend.send_early(_request().to_wire())
        backend.read_early_while(busy)
        assert server.wait_for_requests(1)  # the server has it (and waits on the gate)
        await backend.aclose()  # the reader is cancelled, the reply closed: nothing hangs
        gate.set()
        busy.set_result(None)
    assert len(server.requests) == 1


async def test_cancelled_while_taking_over_a_read_in_flight_closes_the_reply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while ``stream_batches`` waits for the early reader's read in flight: the reply is
    closed at once (the server sees the client leave before the backend is closed)."""
    offered = asyncio.Event()

    with LoopbackServer() as server:
        server.add(
            Reply.sse(
                [sse({"type": "response.output_text.delta", "delta": "One"}), AwaitDisconnect()]
            )
        )
        backend = ResponsesBackend(server.base_url, api_key=KEY, sleep=_no_sleep)
        busy: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        request = _request()
        await backend.send_early(request.to_wire())
        monkeypatch.setattr("forge_cli._lazy.first_paint", lambda batch: offered.set() or True)
        backend.read_early_while(busy)
        await offered.wait()  # the first batch is read; the reader waits for the next
        busy.set_result(None)
        taker = asyncio.ensure_future(_events(backend, request))
        while backend._early is not None:  # stream_batches took the send over
            await asyncio.sleep(0)
        taker.cancel()
        with pytest.raises(asyncio.CancelledError):
            await taker
        try:
            assert server.requests[0].disconnected.wait(5)
        finally:
            await backend.aclose()


@pytest.mark.parametrize("stage", ["send", "reader"])
async def test_dropping_an_early_send_does_not_swallow_its_callers_cancellation(
    stage: str,
) -> None:
    """``aclose`` (``_drop_early``) cancels the early send and its reader and waits for them; a
    cancellation of the task calling it meanwhile (a second Ctrl-C, a timeout around the close)
    is that task's own and must still end it, not be taken for the send's."""
    from forge_cli.backends._early import EarlySending

    started = asyncio.Event()
    winding_down = asyncio.Event()
    finish = asyncio.Event()

    async def slow_to_cancel() -> None:  # cleans up for a while when cancelled
        started.set()
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            winding_down.set()
            await finish.wait()

    async def send(sent: asyncio.Future[None]) -> Any:
        sent.set_result(None)
        if stage == "send":
            await slow_to_cancel()
        return await asyncio.get_running_loop().create_future()

    sending = EarlySending()
    await sending._start_early({"a": 1}, send)
    if stage == "reader":
        assert sending._early is not None
        sending._early.reader = asyncio.ensure_future(slow_to_cancel())
    await started.wait()
    closer = asyncio.ensure_future(sending._drop_early())
    await winding_down.wait()  # _drop_early waits for the cancelled send or reader to end
    closer.cancel()
    finish.set()
    with pytest.raises(asyncio.CancelledError):
        await closer
