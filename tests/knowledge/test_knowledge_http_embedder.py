"""The OpenAI-compatible HTTP embedder against a real loopback server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from forge_cli.backends.embeddings import OpenAIEmbedder
from forge_cli.errors import AuthError, BackendConnectionError, BackendHTTPError, ProtocolError
from forge_cli.knowledge import Embedder, KnowledgeStore


class _Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []
    mode: ClassVar[str] = "ok"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        _Handler.requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("authorization")}
        )
        if _Handler.mode == "401":
            self._send(401, {"error": {"message": "bad key"}})
        elif _Handler.mode == "500":
            self._send(500, {"error": {"message": "model exploded"}})
        elif _Handler.mode == "garbage":
            self._send(200, {"nope": True})
        else:
            data = [
                {"index": i, "embedding": [float(len(t)), float(t.count("moon")) + 1.0]}
                for i, t in enumerate(body["input"])
            ]
            self._send(200, {"object": "list", "data": list(reversed(data))})

    def _send(self, status: int, payload: object) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Handler)
    _Handler.requests = []
    _Handler.mode = "ok"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_embeds_in_batches_and_orders_by_index(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_EMBED_KEY", "sk-test")
    with OpenAIEmbedder(server, "embed-1", api_key_env="TEST_EMBED_KEY", batch_size=2) as emb:
        assert isinstance(emb, Embedder)
        vectors = emb.embed(["a", "bb", "ccc"])
    assert vectors == [[1.0, 1.0], [2.0, 1.0], [3.0, 1.0]]
    assert [r["body"]["input"] for r in _Handler.requests] == [["a", "bb"], ["ccc"]]
    assert all(r["path"] == "/v1/embeddings" for r in _Handler.requests)
    assert _Handler.requests[0]["body"]["model"] == "embed-1"
    assert _Handler.requests[0]["auth"] == "Bearer sk-test"


def test_store_uses_http_embedder(server: str, tmp_path: Path) -> None:
    with (
        OpenAIEmbedder(server, "embed-1") as emb,
        KnowledgeStore(tmp_path / "k.db", embedder=emb) as store,
    ):
        vs = store.create_vector_store("v")
        store.add_file(b"the moon and the moon again", "moon.md", vector_store_id=vs.id)
        store.add_file(b"nothing lunar in this one at all", "other.md", vector_store_id=vs.id)
        hits = store.search([vs.id], "moon", max_num_results=2)
    assert hits[0].filename == "moon.md"
    assert len(_Handler.requests) == 3  # two files at ingest, one query


@pytest.mark.parametrize(
    ("mode", "error", "message"),
    [
        ("401", AuthError, "refused"),
        ("500", BackendHTTPError, "model exploded"),
        ("garbage", ProtocolError, "cannot read"),
    ],
)
def test_errors_are_mapped(server: str, mode: str, error: type[Exception], message: str) -> None:
    _Handler.mode = mode
    with (
        OpenAIEmbedder(server, "m", api_key_env="NO_SUCH_KEY_VAR") as emb,
        pytest.raises(error, match=message) as info,
    ):
        emb.embed(["x"])
    if isinstance(info.value, AuthError):
        assert info.value.env_var == "NO_SUCH_KEY_VAR"


def test_connection_refused_is_mapped() -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with (
        OpenAIEmbedder(f"http://127.0.0.1:{port}/v1", "m", timeout=2) as emb,
        pytest.raises(
            BackendConnectionError, match=f"could not connect to http://127.0.0.1:{port}"
        ),
    ):
        emb.embed(["x"])
