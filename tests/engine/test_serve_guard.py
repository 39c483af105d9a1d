"""`forge serve` against a web page and a greedy client: Host, Origin and body-size checks.

Raw ``http.client`` / socket requests on loopback, so the headers are exactly what a browser or a
DNS-rebinding page would send.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_helpers import read_reply

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.guard import GuardPolicy, split_host
from forge_cli.engine.server import BackgroundServer, ServeAccess
from forge_cli.knowledge import KnowledgeStore

LIMIT = 4096


@pytest.fixture
def server(tmp_path: Path) -> Iterator[BackgroundServer]:
    with KnowledgeStore(tmp_path / "knowledge.db", max_file_bytes=2000) as store:
        engine = Engine(store, EngineConfig(seed=False))
        access = ServeAccess(
            allowed_hosts=("forge.internal",),
            allowed_origins=("https://app.example",),
            max_body_bytes=LIMIT,
        )
        with BackgroundServer(engine, access=access) as srv:
            yield srv


def _request(
    srv: BackgroundServer,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        all_headers = {"Host": f"127.0.0.1:{srv.port}", **(headers or {})}
        if body is not None:
            all_headers.setdefault("Content-Length", str(len(body)))
        for name, value in all_headers.items():
            conn.putheader(name, value)
        conn.endheaders(body)
        reply = conn.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        conn.close()


def _error_code(body: bytes) -> str:
    return str(json.loads(body)["error"]["code"])


def test_loopback_host_names_with_the_bound_port_are_served(server: BackgroundServer) -> None:
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", f"[::1]:{server.port}"):
        status, _, _ = _request(server, "GET", "/v1/vector_stores", headers={"Host": host})
        assert status == 200, host


@pytest.mark.parametrize(
    "host", ["evil.example:{port}", "127.0.0.1:1", "localhost", "", "127.0.0.1:{port}x"]
)
def test_other_host_names_are_refused(server: BackgroundServer, host: str) -> None:
    """DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1."""
    status, _, body = _request(
        server, "GET", "/v1/files", headers={"Host": host.format(port=server.port)}
    )
    assert status == 400
    assert _error_code(body) == "invalid_host"


def test_a_configured_host_name_is_served(server: BackgroundServer) -> None:
    status, _, _ = _request(server, "GET", "/v1/files", headers={"Host": "forge.internal:8443"})
    assert status == 200


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", b'{"name": "pwned"}'),
        ("application/json", b'{"name": "pwned"}'),
        ("multipart/form-data; boundary=x", b"--x--\r\n"),
    ],
)
def test_cross_origin_writes_are_refused(
    server: BackgroundServer, content_type: str, body: bytes
) -> None:
    """The "simple" POSTs a web page may send without a CORS preflight."""
    for origin in ("http://evil.example", "null"):
        status, _, answer = _request(
            server,
            "POST",
            "/v1/vector_stores",
            body,
            {"Origin": origin, "Content-Type": content_type},
        )
        assert status == 403, origin
        assert _error_code(answer) == "cross_origin_refused"
    status, _, listing = _request(server, "GET", "/v1/vector_stores")
    assert status == 200
    assert json.loads(listing)["data"] == []


def test_cross_site_fetch_without_origin_is_refused(server: BackgroundServer) -> None:
    status, _, _ = _request(
        server, "POST", "/v1/vector_stores", b"{}", {"Sec-Fetch-Site": "cross-site"}
    )
    assert status == 403


def test_clients_without_origin_and_allowed_origins_may_write(server: BackgroundServer) -> None:
    plain = {"Content-Type": "application/json"}
    status, headers, _ = _request(server, "POST", "/v1/vector_stores", b'{"name": "a"}', plain)
    assert status == 200
    assert "access-control-allow-origin" not in headers
    allowed = {**plain, "Origin": "https://app.example"}
    status, headers, _ = _request(server, "POST", "/v1/vector_stores", b'{"name": "b"}', allowed)
    assert status == 200
    assert headers["access-control-allow-origin"] == "https://app.example"
    own = {**plain, "Origin": f"http://localhost:{server.port}"}
    status, _, _ = _request(server, "POST", "/v1/vector_stores", b'{"name": "c"}', own)
    assert status == 200


def test_preflight_for_an_allowed_origin(server: BackgroundServer) -> None:
    headers = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    status, answer, _ = _request(server, "OPTIONS", "/v1/vector_stores", headers=headers)
    assert status == 204
    assert answer["access-control-allow-origin"] == "https://app.example"
    assert "authorization" in answer["access-control-allow-headers"]


def test_a_json_body_over_the_limit_is_refused_by_its_length(server: BackgroundServer) -> None:
    body = json.dumps({"name": "x" * LIMIT}).encode()
    status, _, answer = _request(
        server, "POST", "/v1/vector_stores", body, {"Content-Type": "application/json"}
    )
    assert status == 413
    error = json.loads(answer)["error"]
    assert error["code"] == "request_too_large"
    assert str(LIMIT) in error["message"]


def _chunked_head(srv: BackgroundServer, path: str, content_type: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
        f"Content-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()


@pytest.mark.parametrize(
    ("path", "content_type", "limit"),
    [
        ("/v1/vector_stores", "application/json", LIMIT),
        ("/v1/files", "multipart/form-data; boundary=x", 2000 + 64 * 1024),
    ],
)
def test_a_chunked_body_is_cut_off_while_it_streams(
    server: BackgroundServer, path: str, content_type: str, limit: int
) -> None:
    """The body never ends (no last chunk): the answer must come once the limit is passed."""
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall(_chunked_head(server, path, content_type))
        chunk = b"a" * 1024
        for _ in range(limit // len(chunk) + 2):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        status, _, body = read_reply(sock)
    assert status == 413
    assert _error_code(body) == "request_too_large"


def test_a_chunked_body_under_the_limit_is_read(server: BackgroundServer) -> None:
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall(_chunked_head(server, "/v1/vector_stores", "application/json"))
        body = b'{"name": "chunky"}'
        sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
        status, _, answer = read_reply(sock)
    assert status == 200
    assert json.loads(answer)["name"] == "chunky"


def test_split_host_and_policy_corner_cases() -> None:
    assert split_host("[::1]:8080") == ("::1", 8080)
    assert split_host("Example.COM") == ("example.com", None)
    assert split_host("a:b") == ("a", -1)
    wildcard = GuardPolicy(host="0.0.0.0", port=9999)
    assert wildcard.host_allowed("192.168.1.5:9999")
    assert not wildcard.host_allowed("rebound.example:9999")
    assert GuardPolicy(host="127.0.0.1", port=80).host_allowed("localhost")
    assert GuardPolicy(allowed_hosts=("*",)).host_allowed("anything")
    assert not GuardPolicy(port=1).origin_allowed("https://127.0.0.1:1")


def test_a_deeply_nested_body_is_a_400_not_a_crash(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:
        engine = Engine(store, EngineConfig(seed=False))
        with BackgroundServer(engine) as srv:
            body = b"[" * 200_000 + b"]" * 200_000
            status, _, answer = _request(
                srv, "POST", "/v1/vector_stores", body, {"Content-Type": "application/json"}
            )
    assert status == 400
    assert "nested deeper than" in json.loads(answer)["error"]["message"]
