"""``ChatCompletionsBackend.send_early``: a Chat Completions body written before its typed Request
exists, its reply streamed by ``stream_early`` -- one request on the wire, and the retries, errors
and events of an ordinary send (ADR 0020); any other send drops an early send nobody took."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

import pytest

from forge_cli.backends import ChatCompletionsBackend
from forge_cli.backends.chat.request import to_chat_body
from forge_cli.errors import AuthError, BackendConnectionError, BackendHTTPError, ForgeError
from forge_cli.protocol import Request, StreamEvent
from forge_cli.testing.fake_chat_server import text_chunks
from helpers.loopback import Drop, LoopbackServer, Reply, Step, WaitFor, sse, sse_done

pytestmark = pytest.mark.anyio

KEY = "sk-chat-early-SECRET-0123456789"


def _answer(text: str, *, gate: threading.Event | None = None, drop: bool = False) -> Reply:
    """A Chat Completions stream of ``text`` in three deltas, each in its own write (a gate
    after the first when given), optionally cut off before its end."""
    chunks = text_chunks(text, pieces=3)
    steps: list[Step] = [sse(chunks[0]), sse(chunks[1])]
    if gate is not None:
        steps.append(WaitFor(gate))
    steps += [sse(chunk) for chunk in chunks[2:4]]
    if drop:
        steps.append(Drop())
    else:
        steps += [sse(chunk) for chunk in chunks[4:]] + [sse_done()]
    return Reply.sse(steps)


def _request(text: str = "hi", **fields: Any) -> Request:
    return Request(model="m", input=[{"role": "user", "content": text}], stream=True, **fields)


def _body(request: Request) -> dict[str, Any]:
    return to_chat_body(request).kwargs


async def _no_sleep(_: float) -> None:
    return None


def _backend(server: LoopbackServer, **options: Any) -> ChatCompletionsBackend:
    return ChatCompletionsBackend(base_url=server.base_url, api_key=KEY, sleep=_no_sleep, **options)


async def _events(backend: ChatCompletionsBackend, request: Request) -> list[StreamEvent]:
    return [event async for batch in backend.stream_batches(request) for event in batch]


async def _early_events(backend: ChatCompletionsBackend) -> list[StreamEvent]:
    """The events of the reply to the request ``send_early`` wrote (``stream_early``)."""
    return [event async for batch in backend.stream_early() for event in batch]


async def _run(
    server: LoopbackServer, request: Request, *, early: Request | None, **options: Any
) -> list[StreamEvent] | ForgeError:
    backend = _backend(server, **options)
    try:
        if early is not None:
            await backend.send_early(_body(early))
            return await _early_events(backend)  # its reply is the request's, by construction
        return await _events(backend, request)
    except ForgeError as exc:
        return exc
    finally:
        await backend.aclose()


def _comparable(events: list[StreamEvent] | ForgeError) -> Any:
    """The events without what differs from one stream to the next (ids, timestamps)."""
    assert not isinstance(events, ForgeError), events
    text = repr([(event.type, event.data) for event in events])
    return re.sub(r"'(id|item_id|created_at|response_id)': ('[^']*'|\d+(\.\d+)?)", "", text)


@pytest.mark.parametrize(
    "fields", [{}, {"temperature": 0.5, "max_output_tokens": 64, "instructions": "Be brief."}]
)
async def test_the_same_request_is_sent_once_and_streams_as_usual(fields: dict[str, Any]) -> None:
    request = _request(**fields)
    bodies = []
    results = []
    for early in (None, request):
        with LoopbackServer() as server:
            server.add(_answer("One two three"))
            results.append(await _run(server, request, early=early))
            [sent] = server.requests
            bodies.append(sent.body)
    assert bodies[0] == bodies[1]  # byte for byte, key order included
    assert _comparable(results[0]) == _comparable(results[1])
    deltas = [e.data["delta"] for e in results[1] if e.type.endswith("text.delta")]  # type: ignore[union-attr]
    assert "".join(deltas) == "One two three"
    assert results[1][-1].type == "response.completed"  # type: ignore[index]


async def test_send_early_returns_once_the_body_is_written() -> None:
    with LoopbackServer() as server:
        gate = threading.Event()
        reply = _answer("ok")
        server.add(Reply.sse(reply.steps or (), hold_headers=gate))
        backend = _backend(server)
        try:
            await backend.send_early(_body(_request()))  # no reply has started
            assert await asyncio.to_thread(server.wait_for_requests, 1)
            gate.set()
            events = await _early_events(backend)
        finally:
            await backend.aclose()
    assert events[-1].type == "response.completed"
    assert len(server.requests) == 1


async def test_retries_of_the_early_send_are_the_usual_ones() -> None:
    with LoopbackServer() as server:
        server.add(Reply.text(503, "busy"), _answer("ok"))
        events = await _run(server, _request(), early=_request())
        assert len(server.requests) == 2
        assert server.requests[0].body == server.requests[1].body
    assert not isinstance(events, ForgeError)
    assert events[-1].type == "response.completed"


@pytest.mark.parametrize(
    "reply",
    [
        Reply.json(401, {"error": {"message": f"bad key {KEY}"}}),
        Reply.json(400, {"error": {"message": "unknown parameter: reasoning_effort"}}),
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
            requests = len(server.requests)
    assert isinstance(errors[0], BackendHTTPError)
    assert type(errors[0]) is type(errors[1])
    assert lines[0] == lines[1]
    assert KEY not in lines[1]
    assert requests == (1 if reply.status < 500 else 3)  # the usual retries, not more
    if isinstance(errors[1], AuthError):
        assert errors[1].env_var == "OPENAI_API_KEY"


async def test_a_failed_early_send_is_raised_once() -> None:
    with LoopbackServer() as server:
        url = server.base_url
    backend = ChatCompletionsBackend(base_url=url, sleep=_no_sleep)  # nothing listens there
    try:
        await backend.send_early(_body(_request()))  # returns: the attempt is over
        with pytest.raises(BackendConnectionError):
            await _early_events(backend)
        assert backend._early is None  # handed over once: a second stream sends again
        with pytest.raises(BackendConnectionError):
            await _events(backend, _request())
    finally:
        await backend.aclose()


@pytest.mark.parametrize(
    ("early", "wanted"),
    [
        (_body(_request("first")), _request("second")),
        # equal as Python values, not as JSON: 1 and 1.0 are sent differently
        ({**_body(_request("hi")), "temperature": 1}, _request("hi", temperature=1.0)),
    ],
)
async def test_a_different_request_cancels_the_early_send_and_is_sent_itself(
    early: dict[str, Any], wanted: Request
) -> None:
    with LoopbackServer() as server:
        gate = threading.Event()
        server.add(Reply.sse([], hold_headers=gate), _answer("second"))
        backend = _backend(server)
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
    assert second.json() == _body(wanted)
    deltas = [e.data["delta"] for e in events if e.type.endswith("text.delta")]
    assert "".join(deltas) == "second"


async def test_closing_the_backend_drops_an_early_send_nobody_took() -> None:
    with LoopbackServer() as server:
        gate = threading.Event()
        server.add(Reply.sse([], hold_headers=gate))
        backend = _backend(server)
        await backend.send_early(_body(_request()))
        await backend.aclose()  # cancels the send waiting for its reply
        gate.set()
        assert backend._early is None
        assert server.wait_for_requests(1)


async def test_closing_the_backend_collects_a_failed_early_send() -> None:
    with LoopbackServer() as server:
        url = server.base_url
    backend = ChatCompletionsBackend(base_url=url, max_retries=0)
    await backend.send_early(_body(_request()))  # the attempt failed; nobody takes it over
    await backend.aclose()  # its error is retrieved here, not raised, not left unretrieved
    assert backend._early is None
