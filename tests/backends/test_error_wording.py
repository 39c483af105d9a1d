"""One failure, one sentence: the same HTTP failure reads the same on ``--api responses`` and
``--api chat``.

Each case is served for real on loopback to both backends and run through the turn runner (as
``forge ask`` and ``forge chat`` do), and the one line the user would see is compared exactly,
with the endpoint's URL (``…/v1/responses`` or ``…/v1/chat/completions``, the only difference
that means something) written as ``<endpoint>``. Retries keep their policies (the chat backend
retries a little more, as the openai SDK did); their waits are recorded, never slept.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from forge_cli.agent.turn import backend_responder, run_turn
from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.backends.http.client import RetryPolicy
from forge_cli.backends.responses.backend import ResponsesBackend
from forge_cli.protocol.request import Request
from helpers import hostile  # type: ignore[import-not-found]
from helpers.loopback import (  # type: ignore[import-not-found]
    Drop,
    LoopbackServer,
    Reply,
    Send,
    WaitFor,
)

APIS = ("responses", "chat")
KEY = "sk-wording-0123456789abcdef"
KEY_VAR = "FORGE_WORDING_TEST_KEY"
READ_TIMEOUT = 0.5
HINT_RUNNING = "(hint: is the server running?)"
WAIT = {"Retry-After": "600"}  # longer than the 120 s either API waits: no retry


@dataclass(frozen=True)
class Case:
    """What the server does (replies built per API) and the line the user must see."""

    name: str
    replies: Callable[[str], list[Reply]]
    line: str


def _retried(reply: Reply) -> Callable[[str], list[Reply]]:
    """The same reply to the first try and both retries (a status both APIs retry)."""
    return lambda api: [reply, reply, reply]


def _partial(api: str) -> list[Send]:
    return [Send(frame) for frame in hostile._answer_frames(api, "half an ans", terminal=False)]


_never = threading.Event()  # a pause nobody ends: the server gives up when it stops

CASES = [
    Case(
        "400 with a JSON error",
        lambda api: [Reply.json(400, {"error": {"message": "Unknown model 'x'."}})],
        "<endpoint> returned HTTP 400: Unknown model 'x'.",
    ),
    Case(
        "401 that echoes the key",
        lambda api: [Reply.json(401, {"error": {"message": f"Incorrect API key: {KEY}"}})],
        "<endpoint> refused the credentials (HTTP 401): Incorrect API key: *** "
        f"(hint: set the API key in the environment variable {KEY_VAR})",
    ),
    Case(
        "404 in plain text",
        lambda api: [Reply.text(404, "404 page not found")],
        "<endpoint> returned HTTP 404: 404 page not found",
    ),
    Case(
        "429 asking for a wait too long to retry",
        lambda api: [Reply.json(429, {"error": {"message": "Rate limit reached."}}, headers=WAIT)],
        "<endpoint> returned HTTP 429: Rate limit reached. "
        "(the server asked to wait 10 min before trying again)",
    ),
    Case(
        "500 with a JSON error, retried",
        _retried(Reply.json(500, {"error": {"message": "The server had an error."}})),
        "<endpoint> returned HTTP 500: The server had an error.",
    ),
    Case(
        "502 with an HTML page, retried",
        _retried(
            Reply(
                status=502,
                headers={"Content-Type": "text/html"},
                body=b"<html><body><h1>502 Bad Gateway</h1></body></html>",
            )
        ),
        "<endpoint> returned HTTP 502",
    ),
    Case(
        "a web page instead of a stream",
        lambda api: [
            Reply(status=200, headers={"Content-Type": "text/html"}, body=b"<html>hi</html>")
        ],
        "<endpoint> answered with a web page, not an event stream "
        "(hint: check the base URL; it usually ends in /v1)",
    ),
    Case(
        "the connection cut mid-stream",
        lambda api: [Reply.sse([*_partial(api), Drop()])],
        "the stream ended early: the connection to <endpoint> was lost "
        "(peer closed connection without sending complete message body (incomplete chunked read))",
    ),
    Case(
        "a clean close before the answer finished",
        lambda api: [Reply.sse(_partial(api))],
        "the stream ended before the answer finished (no terminal event)",
    ),
    Case(
        "nothing but bad JSON",
        lambda api: [Reply.sse([Send(b"data: {not json\n\n"), Send(b"data: [1, 2\n\n")])],
        "the server's stream carried no valid event",
    ),
    Case(
        "silence mid-stream",
        lambda api: [Reply.sse([*_partial(api), WaitFor(_never, timeout=30)])],
        f"no data from <endpoint> after {READ_TIMEOUT:g} s (idle read timeout) "
        "(hint: the server may be overloaded; raise the read timeout for slow models)",
    ),
]


def _backend(api: str, base_url: str, waits: list[float]) -> Any:
    async def sleep(delay: float) -> None:
        waits.append(delay)

    if api == "responses":
        return ResponsesBackend(
            base_url, api_key=KEY, api_key_env=KEY_VAR, read_timeout=READ_TIMEOUT, sleep=sleep,
            retry=RetryPolicy(jitter=0.0),
        )  # fmt: skip
    return ChatCompletionsBackend(
        base_url=base_url, api_key=KEY, api_key_env=KEY_VAR, timeout=READ_TIMEOUT, sleep=sleep
    )


def _endpoint(api: str, base_url: str) -> str:
    return f"{base_url}/responses" if api == "responses" else f"{base_url}/chat/completions"


def _error_line(api: str, base_url: str) -> str:
    """The one line a turn against ``base_url`` ends with, the endpoint written generically."""
    waits: list[float] = []

    async def turn() -> str | None:
        backend = _backend(api, base_url, waits)
        try:
            outcome = await run_turn(backend_responder(backend), Request(model="m", input="hi"))
        finally:
            await backend.aclose()
        assert outcome.status == "failed"
        return outcome.error_line

    line = asyncio.run(turn())
    assert line is not None
    assert KEY not in line
    return line.replace(_endpoint(api, base_url), "<endpoint>")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_same_failure_reads_the_same_on_both_apis(case: Case) -> None:
    lines = {}
    for api in APIS:
        with LoopbackServer() as server:
            server.add(*case.replies(api))
            lines[api] = _error_line(api, server.base_url)
            server.assert_consumed()
    assert lines == dict.fromkeys(APIS, case.line)


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A loopback port where a connection is refused: bound, never listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_connection_refused_reads_the_same_on_both_apis(refusing_port: int) -> None:
    base_url = f"http://127.0.0.1:{refusing_port}/v1"
    lines = {api: _error_line(api, base_url) for api in APIS}
    refused = f"could not connect to <endpoint>: All connection attempts failed {HINT_RUNNING}"
    assert lines == dict.fromkeys(APIS, refused)


KNOWLEDGE_CASES = [
    (Reply.json(429, {"error": {"message": "Slow down."}}, headers={"Retry-After": "45"}),
     "<url> returned HTTP 429: Slow down. (the server asked to wait 45 s before trying again)"),
    (Reply.json(500, {"error": {"message": "The server had an error."}}),
     "<url> returned HTTP 500: The server had an error."),
    (Reply.json(401, {"error": {"message": f"Incorrect API key: {KEY}"}}),
     "<url> refused the credentials (HTTP 401): Incorrect API key: *** "
     f"(hint: set the API key in the environment variable {KEY_VAR})"),
    (Reply(status=502, headers={"Content-Type": "text/html"}, body=b"<html>Bad Gateway</html>"),
     "<url> returned HTTP 502"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "line"), KNOWLEDGE_CASES)
def test_the_knowledge_and_embeddings_clients_say_the_same(reply: Reply, line: str) -> None:
    """``forge vs`` / ``forge files`` against a server, and the embeddings client, word an HTTP
    failure as the backends do (the knowledge client never retries)."""
    from forge_cli.backends.embeddings import OpenAIEmbedder
    from forge_cli.backends.knowledge_http import HttpKnowledgeClient
    from forge_cli.errors import ForgeError

    async def list_stores(base_url: str) -> None:
        client = HttpKnowledgeClient(base_url, api_key=KEY, api_key_env=KEY_VAR)
        try:
            await client.list_vector_stores()
        finally:
            await client.aclose()

    with LoopbackServer() as server:
        server.add(reply, reply)
        with pytest.raises(ForgeError) as listing:
            asyncio.run(list_stores(server.base_url))
        with (
            pytest.MonkeyPatch.context() as env,
            OpenAIEmbedder(server.base_url, "emb", api_key_env=KEY_VAR) as embedder,
        ):
            env.setenv(KEY_VAR, KEY)
            with pytest.raises(ForgeError) as embedding:
                embedder.embed(["x"])
        server.assert_consumed()
    base = server.base_url
    assert listing.value.one_line() == line.replace("<url>", f"{base}/vector_stores")
    assert embedding.value.one_line() == line.replace("<url>", f"{base}/embeddings")


def test_a_404_on_a_list_says_the_server_has_no_such_endpoint() -> None:
    """A 404 on ``GET /v1/vector_stores`` (a server that serves no vector stores: Ollama, vLLM)
    is not an unknown id: it said only "Not Found", from the server's body. A 404 on one store
    still is an unknown id (``NotFoundError``)."""
    from forge_cli.backends.knowledge_http import HttpKnowledgeClient
    from forge_cli.errors import BackendHTTPError, NotFoundError

    async def call(base_url: str, what: str) -> None:
        client = HttpKnowledgeClient(base_url)
        try:
            if what == "list":
                await client.list_vector_stores()
            else:
                await client.get_vector_store("vs_gone")
        finally:
            await client.aclose()

    with LoopbackServer() as server:
        server.add(*[Reply.json(404, {"detail": "Not Found"})] * 2)
        with pytest.raises(BackendHTTPError) as listing:
            asyncio.run(call(server.base_url, "list"))
        with pytest.raises(NotFoundError) as one:
            asyncio.run(call(server.base_url, "one"))
        server.assert_consumed()
    assert listing.value.one_line() == (
        f"{server.base_url}/vector_stores returned HTTP 404: Not Found (hint: this server has no"
        " /vector_stores (forge serve and Knowledge Forge have it); check --base-url (it usually"
        " ends in /v1))"
    )
    assert one.value.one_line() == "Not Found"


def test_the_knowledge_client_refused_reads_as_the_backends(refusing_port: int) -> None:
    from forge_cli.backends.knowledge_http import HttpKnowledgeClient
    from forge_cli.errors import ForgeError

    base_url = f"http://127.0.0.1:{refusing_port}/v1"

    async def list_stores() -> None:
        client = HttpKnowledgeClient(base_url)
        try:
            await client.list_vector_stores()
        finally:
            await client.aclose()

    with pytest.raises(ForgeError) as info:
        asyncio.run(list_stores())
    assert info.value.one_line() == (
        f"could not connect to {base_url}/vector_stores: All connection attempts failed "
        f"{HINT_RUNNING}"
    )


def _no_key_line(api: str, base_url: str) -> str | None:
    if api == "responses":
        backend: Any = ResponsesBackend(base_url, api_key_env=KEY_VAR)
    else:
        backend = ChatCompletionsBackend(base_url=base_url, api_key_env=KEY_VAR)

    async def turn() -> str | None:
        try:
            request = Request(model="m", input="hi")
            return (await run_turn(backend_responder(backend), request)).error_line
        finally:
            await backend.aclose()

    return asyncio.run(turn())


def test_a_401_without_a_key_says_so_on_both_apis(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key configured: the chat backend sends its placeholder and the Responses backend
    nothing, but both say no API key is set and which variable would hold it."""
    monkeypatch.delenv(KEY_VAR, raising=False)
    lines = {}
    for api in APIS:
        with LoopbackServer() as server:
            server.add(Reply.json(401, {"error": {"message": "Missing key."}}))
            line = _no_key_line(api, server.base_url)
            assert line is not None
            lines[api] = line.replace(_endpoint(api, server.base_url), "<endpoint>")
    assert lines == dict.fromkeys(
        APIS,
        f"<endpoint> refused the credentials (HTTP 401) (no API key: {KEY_VAR} is not "
        f"set): Missing key. (hint: set the API key in the environment variable {KEY_VAR})",
    )


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"object": "list"}, "did not answer a list page"),
        ({"object": "list", "data": [{"id": "vs_1"}], "has_more": True}, "kept paginating"),
    ],
)
def test_the_knowledge_clients_list_errors_name_the_endpoint(
    body: dict[str, Any], said: str
) -> None:
    """A list reply that is not a list page names the endpoint it came from, as the other
    failures do: with its slash, and without the base URL's credentials."""
    from forge_cli.backends.knowledge_http import HttpKnowledgeClient
    from forge_cli.errors import ForgeError

    async def list_stores(base_url: str) -> None:
        client = HttpKnowledgeClient(base_url)
        try:
            await client.list_vector_stores()
        finally:
            await client.aclose()

    with LoopbackServer() as server:
        server.add(*[Reply.json(200, body)] * (1 if said.startswith("did") else 1000))
        credentialed = server.base_url.replace("http://", "http://user:hunter2@")
        with pytest.raises(ForgeError) as info:
            asyncio.run(list_stores(credentialed))
    assert info.value.one_line() == f"{server.base_url}/vector_stores {said}"


def test_a_401_without_a_key_never_claims_nothing_was_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat backend sends a placeholder key when none is set, and OpenAI's 401 quotes the key
    it got: the line said "no API key was sent" and then "Incorrect API key provided:
    sk-no-key-required". It names the unset variable without claiming no header went out."""
    monkeypatch.delenv(KEY_VAR, raising=False)
    for api in APIS:
        with LoopbackServer() as server:
            server.add(Reply.json(401, {"error": {"message": "Incorrect API key provided."}}))
            line = _no_key_line(api, server.base_url)
            sent = "authorization" in server.requests[0].headers
        assert line is not None
        assert f"{KEY_VAR} is not set" in line
        if sent:
            assert "no API key was sent" not in line, line


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0.2, "1 s"),
        (45, "45 s"),
        (119.5, "2 min"),
        (600, "10 min"),
        (7200, "2 h"),
        (7500, "2 h 5 min"),
    ],
)
def test_a_requested_wait_reads_in_the_unit_a_person_would_use(seconds: float, words: str) -> None:
    from forge_cli.backends.http.client import _wait_words

    assert _wait_words(seconds) == words
