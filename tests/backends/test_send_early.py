"""``ResponsesBackend.send_early``: a request written before its typed Request exists, its reply
streamed by ``stream_early`` -- one request on the wire, and the retries, errors and events of an
ordinary send (ADR 0020); any other send drops an early send nobody took."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from forge_cli.backends import ResponsesBackend, RetryPolicy
from forge_cli.errors import AuthError, BackendConnectionError, BackendHTTPError, ForgeError
from forge_cli.protocol import Request, StreamEvent
from helpers.loopback import (
    LoopbackServer,
    Reply,
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


async def _early_events(backend: ResponsesBackend) -> list[StreamEvent]:
    """The events of the reply to the request ``send_early`` wrote (``stream_early``)."""
    return [event async for batch in backend.stream_early() for event in batch]


async def _run(
    server: LoopbackServer, request: Request, *, early: Request | None, **options: Any
) -> list[StreamEvent] | ForgeError:
    backend = ResponsesBackend(server.base_url, api_key=KEY, sleep=_no_sleep, **options)
    try:
        if early is not None:
            await backend.send_early(early.to_wire())
            return await _early_events(backend)  # its reply is the request's, by construction
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
            events = await _early_events(backend)
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
            await _early_events(backend)
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


async def test_dropping_an_early_send_does_not_swallow_its_callers_cancellation() -> None:
    """``aclose`` (``_drop_early``) cancels the early send and waits for it; a
    cancellation of the task calling it meanwhile (a second Ctrl-C, a timeout around the close)
    is that task's own and must still end it, not be taken for the send's."""
    from forge_cli.backends.http.early import EarlySending

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
        await slow_to_cancel()
        return await asyncio.get_running_loop().create_future()

    sending = EarlySending()
    await sending._start_early({"a": 1}, send)
    await started.wait()
    closer = asyncio.ensure_future(sending._drop_early())
    await winding_down.wait()  # _drop_early waits for the cancelled send to end
    closer.cancel()
    finish.set()
    with pytest.raises(asyncio.CancelledError):
        await closer
