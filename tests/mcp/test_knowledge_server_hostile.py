"""The knowledge MCP server against a hostile client: malformed JSON-RPC, wrong and huge
arguments, unknown tools, and names that carry terminal escape sequences.

Both transports run as they do for a user, in a process of their own whose stderr is the
server operator's terminal: ``forge mcp`` over stdio (the real command), and ``/mcp`` of a
``forge serve`` app on a loopback socket. The MCP SDK logs a failing request with the client's
text in it; that text must never reach the terminal raw.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import IO, Any

import httpx2
from mcp.types import LATEST_PROTOCOL_VERSION
from mcp_helpers import Corpus

from forge_cli.sanitize import dangerous_chars

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\u202e"
EXPECTED_IDS = {2, 3, 4, 5, 6, 7, 8}


def _hostile_requests(corpus: Corpus) -> list[dict[str, Any]]:
    deep: Any = "x"
    for _ in range(60):
        deep = [deep]
    return [
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": ESCAPES}},
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": f"x:{ESCAPES}"}},
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": f"nope{ESCAPES}", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": 5, "max_num_results": "all"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 6,
            "method": "tools/call",
            "params": {
                "name": "read_document",
                "arguments": {"file_id": f"../../{ESCAPES}", "start_page": -1},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": "search",
                "arguments": {
                    "query": "lamp " * 20_000,
                    "vector_store_ids": [corpus.vector_store_id],
                    "filters": {"type": "and", "filters": deep},
                },
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 8,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "lamp", "max_num_results": 10**9}},
        },
    ]


def _check_answers(answers: dict[int, dict[str, Any]]) -> None:
    assert set(answers) >= EXPECTED_IDS
    for ident in EXPECTED_IDS:
        answer = answers[ident]
        failed = "error" in answer or answer["result"].get("isError") is True
        assert failed, answer


def _check_terminal(err: str) -> None:
    """What the server wrote for its operator: no raw control text, no rich traceback boxes."""
    assert not set(err) & dangerous_chars(), err
    assert "Traceback" not in err
    assert "╭─" not in err


def _reader(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _collect(stream: IO[str], into: list[str]) -> threading.Thread:
    """Read ``stream`` to its end in a thread (a full stderr pipe must not block the server)."""
    thread = threading.Thread(target=lambda: into.append(stream.read()), daemon=True)
    thread.start()
    return thread


def _finish(process: subprocess.Popen[str], readers: list[threading.Thread], err: list[str]) -> str:
    """Close the server's stdin (it stops), wait for it, and return what it wrote to stderr."""
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    for reader in readers:
        reader.join(timeout=30)
    process.stdout.close()
    process.stderr.close()
    return "".join(err)


def test_forge_mcp_over_stdio_survives_hostile_requests_and_keeps_the_terminal_clean(
    corpus: Corpus,
) -> None:
    env = {
        "FORGE_DATA_DIR": os.environ["FORGE_DATA_DIR"],
        "HOME": os.environ["HOME"],
        "PATH": os.environ.get("PATH", ""),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "forge_cli.cli", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=env,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    lines: queue.Queue[str | None] = queue.Queue()
    stdout = threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True)
    stdout.start()
    err: list[str] = []
    stderr = _collect(process.stderr, err)
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"},
        },
    }
    messages: list[Any] = [hello, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    messages += _hostile_requests(corpus)
    text = "".join(json.dumps(m) + "\n" for m in messages)
    # Lines that are no JSON-RPC at all, a batch and odd ids: answered or ignored, never fatal.
    text += "{nope\n[1, 2]\n" + json.dumps({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})
    text += "\n" + json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"}) + "\n"
    try:
        process.stdin.write(text)
        process.stdin.flush()
        answers: dict[int, dict[str, Any]] = {}
        while not EXPECTED_IDS | {9} <= set(answers):
            line = lines.get(timeout=30)
            assert line is not None, "forge mcp closed its stdout"
            message = json.loads(line)
            if isinstance(message.get("id"), int):
                answers[message["id"]] = message
    finally:
        written = _finish(process, [stdout, stderr], err)
    _check_answers(answers)
    assert answers[9]["result"] == {}
    _check_terminal(written)


_HTTP_SERVER = textwrap.dedent(
    """
    import sys
    from forge_cli.engine import Engine, EngineConfig
    from forge_cli.engine.app import create_app
    from forge_cli.engine.server import BackgroundServer
    from forge_cli.knowledge import KnowledgeStore
    from forge_cli.logs import configure_logging
    from forge_cli.mcp.http_mount import mount_knowledge_mcp

    configure_logging(debug=False)  # as the CLI does
    with KnowledgeStore(sys.argv[1]) as store:
        app = create_app(Engine(store, EngineConfig(seed=False)))
        mount_knowledge_mcp(app, store)
        with BackgroundServer(app=app) as server:
            print(server.port, flush=True)
            sys.stdin.read()  # until the test closes it
    """
)


def test_serve_mcp_over_http_survives_hostile_requests_and_keeps_the_terminal_clean(
    corpus: Corpus, tmp_path: Path
) -> None:
    script = tmp_path / "serve_mcp.py"
    script.write_text(_HTTP_SERVER, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(script), str(corpus.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    err: list[str] = []
    stderr = _collect(process.stderr, err)
    try:
        port = int(process.stdout.readline())
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Accept": "application/json, text/event-stream"}
        answers: dict[int, dict[str, Any]] = {}
        with httpx2.Client(timeout=30, headers=headers) as http:
            for request in _hostile_requests(corpus):
                reply = http.post(url, json=request)
                answers[request["id"]] = _jsonrpc_answer(reply.text)
            for raw in (b"{nope", b"[1, 2]", b"[" * 50_000 + b"]" * 50_000):
                reply = http.post(url, content=raw, headers={"Content-Type": "application/json"})
                assert reply.status_code == 400
                assert "error" in reply.json()
            # The server still answers.
            ping = http.post(url, json={"jsonrpc": "2.0", "id": 9, "method": "ping"})
            assert _jsonrpc_answer(ping.text)["result"] == {}
    finally:
        written = _finish(process, [stderr], err)
    _check_answers(answers)
    _check_terminal(written)


def _jsonrpc_answer(text: str) -> dict[str, Any]:
    """The JSON-RPC message of a JSON or single-event SSE answer."""
    for line in text.splitlines():
        if line.startswith("data:"):
            return dict(json.loads(line[5:]))
    return dict(json.loads(text))
