"""Dense retrieval is a setting: with ``engine.embeddings_*`` set, `forge vs create` embeds the
chunks and `forge ask` embeds the query, through an OpenAI-compatible /v1/embeddings server."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from forge_cli.cli.build import engine_config
from forge_cli.config import Settings
from forge_cli.errors import ConfigError

Run = Callable[..., subprocess.CompletedProcess[str]]


class _Embeddings(ThreadingHTTPServer):
    inputs: list[list[str]]


class _Handler(BaseHTTPRequestHandler):
    server: _Embeddings

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.inputs.append(list(body["input"]))
        data = [
            {"index": i, "embedding": [float(len(text)), float(text.count("owl")) + 1.0]}
            for i, text in enumerate(body["input"])
        ]
        raw = json.dumps({"object": "list", "data": data}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def embeddings() -> Iterator[_Embeddings]:
    server = _Embeddings(("127.0.0.1", 0), _Handler)
    server.inputs = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_ingest_and_search_use_the_configured_embeddings(
    forge: Run, embeddings: _Embeddings, tmp_path: Path
) -> None:
    notes = tmp_path / "owls.md"
    notes.write_text(
        "# Owls\n\nBarn owls hunt by sound; their facial disc funnels it to the ears.\n"
    )
    port = embeddings.server_address[1]
    env = {
        "FORGE_EMBEDDINGS_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "FORGE_EMBEDDINGS_MODEL": "test-embed",
    }
    created = forge("vs", "create", "notes", str(notes), env=env)
    assert created.returncode == 0, created.stderr
    ingested = [text for batch in embeddings.inputs for text in batch]
    assert any("facial disc" in text for text in ingested)
    asked = forge(
        "ask", "--plain", "-t", "file-search", "--vs", "notes", "how do owls hunt", env=env
    )
    assert asked.returncode == 0, asked.stderr
    assert "facial disc" in asked.stdout
    assert ["how do owls hunt"] in embeddings.inputs


def test_half_configured_embeddings_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"engine\.embeddings_model"):
        engine_config(Settings(engine_embeddings_base_url="http://127.0.0.1:1/v1"))
