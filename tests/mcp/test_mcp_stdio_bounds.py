"""MCP over stdio against hostile peers (issue 29): huge, deep and garbage lines are one line
each on the operator's terminal (or the server's log), memory stays bounded, and the session
goes on answering.

``forge mcp`` runs as the real command in its own process; the client side runs a stdio server
that prints garbage before it speaks MCP.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp.types import LATEST_PROTOCOL_VERSION
from mcp_helpers import Corpus, server_command

from forge_cli.mcp.config import McpServerSpec
from forge_cli.mcp.manager import McpManager
from forge_cli.mcp.stdio import LineGate, Refusal
from forge_cli.tools import ToolCall, ToolExecutor

HUGE = 17 * 1024 * 1024  # over the 16 MiB message limit
GARBAGE_LINES = 300


def _hello() -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"},
        },
    }


def test_forge_mcp_refuses_huge_deep_and_garbage_lines_in_one_line_each(corpus: Corpus) -> None:
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
        env=env,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    deep = "[" * 5000 + "]" * 5000
    huge = '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"x": "' + "a" * HUGE + '"}}'
    text = (
        json.dumps(_hello())
        + "\n"
        + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        + "\n"
        + "starting up, please wait\n" * GARBAGE_LINES
        + huge
        + "\n"
        + '{"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"x": '
        + deep
        + "}}\n"
        + json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"})
        + "\n"
    ).encode()

    def write() -> None:
        assert process.stdin is not None
        process.stdin.write(text)
        process.stdin.close()

    err: list[bytes] = []
    writer = threading.Thread(target=write, daemon=True)
    errors = threading.Thread(target=lambda: err.append(process.stderr.read()), daemon=True)  # type: ignore[union-attr]
    writer.start()
    errors.start()
    answers = [json.loads(line) for line in process.stdout]
    assert process.wait(timeout=60) == 0
    writer.join(timeout=30)
    errors.join(timeout=30)
    process.stdout.close()
    process.stderr.close()
    ids = [answer.get("id") for answer in answers]
    assert 1 in ids
    assert 9 in ids  # the session goes on after the refusals
    assert 7 not in ids
    assert 8 not in ids
    lines = err[0].decode().splitlines()
    assert "Traceback" not in err[0].decode()
    assert len(lines) == 4, lines
    assert any(f"larger than {16 * 1024 * 1024} bytes" in line for line in lines)
    assert any("deeper than 128 levels" in line for line in lines)
    assert any("not a JSON-RPC message" in line for line in lines)
    assert any(f"{GARBAGE_LINES - 1} more" in line for line in lines)


def test_garbage_from_a_stdio_server_is_one_line_in_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    argv = server_command("tools_server")
    noisy = (
        "import os, sys\n"
        f"sys.stdout.write('loading plugin x\\n' * {GARBAGE_LINES})\n"
        "sys.stdout.flush()\n"
        "os.execv(sys.argv[1], sys.argv[1:])\n"
    )
    spec = McpServerSpec(name="noisy", command=sys.executable, args=("-c", noisy, *argv))

    async def run() -> str:
        manager = McpManager([spec])
        try:
            await manager.prepare()
            assert manager.drain_notices() == []
            executor = ToolExecutor(manager.current_tools())
            report = await executor.execute([ToolCall("c1", "noisy__echo", '{"text": "hi"}')])
            return report.results[0].output
        finally:
            await manager.aclose()

    import anyio

    assert anyio.run(run) == "echo: hi"
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err
    assert "Failed to parse" not in captured.err
    log = (tmp_path / "data" / "logs" / "mcp-noisy.log").read_text()
    assert log.count("Failed to parse JSONRPC message from server") == 2  # first, and summary
    assert f"{GARBAGE_LINES - 1} more like it" in log
    assert "Traceback" not in log


def test_the_line_gate_cuts_a_long_line_as_it_streams() -> None:
    gate = LineGate(max_bytes=10)
    assert gate.feed(b'{"a": 1}\n{"b"') == [b'{"a": 1}']
    assert gate.feed(b"x" * 50) == []
    (refusal,) = gate.feed(b"yy\n")
    assert isinstance(refusal, Refusal)
    assert refusal.kind == "too_large"
    assert gate.feed(b"[[[]]]\n") == [b"[[[]]]"]
    deep = LineGate(max_depth=2)
    (refusal,) = deep.feed(b"[[[]]]\n")
    assert isinstance(refusal, Refusal)
    assert refusal.kind == "too_deep"
