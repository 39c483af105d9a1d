"""`forge serve` over real loopback HTTP: auth, error shapes, SSE framing, files."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer, check_bind, is_loopback
from forge_cli.errors import UsageError
from forge_cli.stream import iter_sse_events


@pytest.fixture
def server(corpus) -> Iterator[BackgroundServer]:  # type: ignore[no-untyped-def]
    with BackgroundServer(Engine(corpus.store, EngineConfig(seed=False)), token="s3cret") as srv:
        yield srv


@pytest.fixture
def http(server: BackgroundServer) -> Iterator[httpx2.Client]:
    headers = {"Authorization": "Bearer s3cret"}
    with httpx2.Client(base_url=server.base_url + "/", headers=headers, timeout=30) as client:
        yield client


def test_non_loopback_bind_needs_a_token() -> None:
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    with pytest.raises(UsageError, match="without a token"):
        check_bind("0.0.0.0", None)
    check_bind("0.0.0.0", "t")


def test_token_is_required_except_for_health(server: BackgroundServer) -> None:
    with httpx2.Client(base_url=server.url) as client:
        assert client.get("/health").json()["status"] == "ok"
        reply = client.get("/v1/models", headers={"Authorization": "Bearer wrong"})
    assert reply.status_code == 401
    assert reply.json()["error"]["code"] == "invalid_api_key"


def test_errors_use_the_openai_shape(http: httpx2.Client, corpus) -> None:  # type: ignore[no-untyped-def]
    missing = http.get("vector_stores/vs_none")
    assert missing.status_code == 404
    assert set(missing.json()["error"]) == {"message", "type", "param", "code"}
    bad_json = http.post(
        "responses", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert bad_json.status_code == 400
    assert bad_json.json()["error"]["type"] == "invalid_request_error"
    bad_filter = http.post(
        f"vector_stores/{corpus.vector_store_id}/search",
        json={"query": "x", "filters": {"type": "near", "key": "a", "value": 1}},
    )
    assert bad_filter.status_code == 400
    assert http.get("no/such/route").json()["error"]["code"] == "404"


def test_sse_stream_and_stored_response(http: httpx2.Client, corpus) -> None:  # type: ignore[no-untyped-def]
    body = {
        "model": "m",
        "input": "foghorn",
        "stream": True,
        "tools": [{"type": "file_search", "vector_store_ids": [corpus.vector_store_id]}],
    }
    with http.stream("POST", "responses", json=body) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        events = list(iter_sse_events(reply.iter_bytes()))
    assert events[0].type == "response.created"
    assert events[-1].type == "response.completed"
    final = events[-1].data["response"]
    assert http.get(f"responses/{final['id']}").json() == final


def test_file_upload_rejects_empty_and_binary_files(http: httpx2.Client) -> None:
    ok = http.post(
        "files",
        files={"file": ("notes.md", b"# Notes\n\nhello there")},
        data={"purpose": "assistants"},
    )
    assert ok.status_code == 200
    assert ok.json()["filename"] == "notes.md"
    assert http.get(f"files/{ok.json()['id']}/content").content == b"# Notes\n\nhello there"
    empty = http.post("files", files={"file": ("empty.txt", b"")})
    assert empty.status_code == 400
    assert "empty" in empty.json()["error"]["message"]
    binary = http.post("files", files={"file": ("blob.txt", bytes(range(256)) * 4)})
    assert binary.status_code == 400
    listed = http.get("files").json()
    assert [f["filename"] for f in listed["data"]].count("notes.md") == 1
