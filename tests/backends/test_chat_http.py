"""The Chat Completions backend on the shared HTTP stack: the SDK's retries, the errors worded as on
the Responses path (tests/backends/test_error_wording.py compares the two).

Real loopback servers; retry waits are recorded by an injected ``sleep``, never slept.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.errors import (
    AuthError,
    BackendHTTPError,
    BackendTimeoutError,
    ProtocolError,
)
from forge_cli.protocol import Request
from helpers.loopback import Drop, LoopbackServer, Reply, WaitFor, sse, sse_done

pytestmark = pytest.mark.anyio

KEY = "sk-chat-http-test-0123456789abcdef"


def _ok(text: str = "hi") -> Reply:
    chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}
    return Reply.sse([sse(chunk), sse_done()])


class _Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def _ask(server: LoopbackServer, **options: Any) -> tuple[str, _Sleeps]:
    sleeps = _Sleeps()
    backend = ChatCompletionsBackend(base_url=server.base_url, api_key=KEY, sleep=sleeps, **options)
    try:
        events = [event async for event in backend.stream(Request(model="m", input="hi"))]
    finally:
        await backend.aclose()
    return events[-1].type, sleeps


async def test_retries_status_and_connection_failures_like_the_sdk() -> None:
    with LoopbackServer() as server:
        server.add(
            Reply.text(503, "busy"),
            Reply.json(429, {"error": {"message": "slow"}}, headers={"retry-after-ms": "1500"}),
            _ok(),
        )
        last, sleeps = await _ask(server)
        assert len(server.requests) == 3
    assert last == "response.completed"
    assert 0.375 <= sleeps.delays[0] <= 0.5  # 0.5 s less up to 25 % jitter
    assert sleeps.delays[1] == 1.5  # the server's retry-after-ms


async def test_a_dropped_connection_is_retried() -> None:
    with LoopbackServer() as server:
        server.add(Reply.drop(), _ok())
        last, sleeps = await _ask(server)
    assert last == "response.completed"
    assert len(sleeps.delays) == 1


async def test_a_read_timeout_before_the_headers_is_retried_then_named() -> None:
    gate = threading.Event()
    try:
        with LoopbackServer() as server:
            server.add(*(Reply(hold_headers=gate) for _ in range(2)))
            with pytest.raises(BackendTimeoutError) as info:
                await _ask(server, timeout=0.2, max_retries=1)
            assert len(server.requests) == 2
    finally:
        gate.set()
    assert info.value.one_line() == (  # worded as on the Responses path
        f"no data from {server.base_url}/chat/completions after 0.2 s (idle read timeout) "
        "(hint: the server may be overloaded; raise the read timeout for slow models)"
    )


@pytest.mark.parametrize(
    ("headers", "status", "said"),
    [
        ({"retry-after": "500"}, 429, " (the server asked to wait 9 min before trying again)"),
        ({"x-should-retry": "false"}, 500, ""),
    ],
)
async def test_what_the_server_forbids_is_not_retried(
    headers: dict[str, str], status: int, said: str
) -> None:
    with LoopbackServer() as server:
        server.add(Reply.text(status, "no", headers=headers))
        with pytest.raises(BackendHTTPError) as info:
            await _ask(server)
        assert len(server.requests) == 1
    assert info.value.one_line() == (
        f"{server.base_url}/chat/completions returned HTTP {status}: no{said}"
    )


async def test_auth_error_names_the_endpoint_and_the_echoed_key_is_redacted() -> None:
    with LoopbackServer() as server:
        server.add(Reply.json(401, {"error": {"message": f"bad key {KEY}"}}))
        with pytest.raises(AuthError) as info:
            await _ask(server)
    assert info.value.one_line().startswith(
        f"{server.base_url}/chat/completions refused the credentials (HTTP 401): bad key ***"
    )
    assert info.value.server_message == "bad key ***"
    assert KEY not in repr(info.value.__cause__)  # what a --debug traceback shows


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (Reply.json(404, {"detail": "Not Found"}), "Not Found"),  # FastAPI's shape
        (Reply.json(400, {"error": "model missing"}), "model missing"),
        (Reply.text(400, "<html><p>nginx</p></html>"), None),
        (Reply.text(400, 'data: {"error": {"message": "framed"}}\n\ndata: [DONE]\n\n'), "framed"),
        (Reply.text(400, "bad \x1b[31mred"), "bad \\x1b[31mred"),
    ],
)
async def test_server_messages_are_read_as_on_the_responses_path(
    reply: Reply, shown: str | None
) -> None:
    with LoopbackServer() as server:
        server.add(reply)
        with pytest.raises(BackendHTTPError) as info:
            await _ask(server)
    assert info.value.server_message == shown


async def test_connection_lost_mid_stream_is_not_retried() -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "par"}}]}
    with LoopbackServer() as server:
        server.add(Reply.sse([sse(chunk), Drop()]))
        with pytest.raises(ProtocolError, match="the stream ended early: the connection to"):
            await _ask(server)
        assert len(server.requests) == 1


async def test_idle_stream_times_out_worded_as_on_the_responses_path() -> None:
    gate = threading.Event()
    chunk = {"choices": [{"index": 0, "delta": {"content": "par"}}]}
    try:
        with LoopbackServer() as server:
            server.add(Reply.sse([sse(chunk), WaitFor(gate)]))
            with pytest.raises(BackendTimeoutError) as info:
                await _ask(server, timeout=0.2)
    finally:
        gate.set()
    assert info.value.one_line() == (
        f"no data from {server.base_url}/chat/completions after 0.2 s (idle read timeout) "
        "(hint: the server may be overloaded; raise the read timeout for slow models)"
    )


async def test_organization_and_project_headers_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    with LoopbackServer() as server:
        server.add(_ok())
        await _ask(server, default_headers={"X-Extra": "1"})
        headers = server.requests[0].headers
    assert headers["openai-organization"] == "org-1"
    assert headers["openai-project"] == "proj-1"
    assert headers["x-extra"] == "1"
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["accept"] == "application/json"


@pytest.mark.parametrize("body", [{"object": "list"}, "not json"])
async def test_a_model_list_we_cannot_read_is_a_protocol_error(body: Any) -> None:
    with LoopbackServer() as server:
        server.add(Reply.json(200, body) if isinstance(body, dict) else Reply.text(200, body))
        backend = ChatCompletionsBackend(base_url=server.base_url, max_retries=0)
        with pytest.raises(ProtocolError, match="/models did not return"):
            await backend.list_models()
        await backend.aclose()
