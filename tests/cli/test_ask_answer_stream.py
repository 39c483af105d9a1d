"""`forge ask` end to end over the one answer stream (issue 11; issue 14 item 4): the real agent
loop's events reach `--jsonl` as `agent.<type>` lines with their fields and rich/plain as notice
lines, and the document's `status` and `error.code` say how the answer really ended."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

TOOLS = '''
from forge_cli.tools import tool


@tool
def cancel_order(order_id: int) -> str:
    """Cancel an order (approval needed: it changes things).

    Args:
        order_id: The order to cancel.
    """
    return f"order {order_id} cancelled"


@tool
def explode(reason: str) -> str:
    """Always fails.

    Args:
        reason: Why.
    """
    raise RuntimeError("the warehouse \\x1b[31mexploded\\x1b[0m: " + reason)
'''

Forge = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS)
    return path


def _ask(server: FakeChatServer, tools_file: Path, *extra: str) -> list[str]:
    return ["ask", "--api", "chat", "--base-url", server.base_url, "--model", "fake-model",
            "--functions", str(tools_file), *extra, "Where is order 4711?"]  # fmt: skip


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _denied_then_limit(server: FakeChatServer) -> None:
    for n in range(2):
        server.add(tool_call_chunks([("cancel_order", {"order_id": n})], ids=[f"call_{n}"]))


def test_jsonl_writes_each_loop_event_with_its_fields(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        _denied_then_limit(server)
        proc = forge(*_ask(server, tools_file, "--jsonl", "--max-iterations", "2"))
        server.assert_consumed()
    assert proc.returncode == 3, proc.stderr
    lines = _lines(proc.stdout)
    kinds = [line["type"] for line in lines]
    assert "agent.event" not in kinds
    assert kinds.count("agent.iteration.started") == 2
    blocked = next(line["payload"] for line in lines if line["type"] == "agent.tool_call.blocked")
    assert blocked["call_id"] == "call_0"
    assert blocked["name"] == "cancel_order"
    assert blocked["by"] == "approval"
    assert "denied" in blocked["reason"].lower()
    limit = next(line for line in lines if line["type"] == "agent.iteration.limit_reached")
    assert limit["payload"] == {"limit": 2, "pending_calls": ["cancel_order"], "requests": 2}
    answer = lines[-1]
    assert answer["type"] == "answer"
    assert answer["payload"]["status"] == "incomplete"
    assert answer["payload"]["error"]["code"] == "tool_iteration_limit"


def test_jsonl_reports_a_failed_call_and_the_answer_completes(
    forge: Forge, tools_file: Path
) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("explode", {"reason": "test"})], ids=["call_x"]))
        server.add(text_chunks("The order could not be found."))
        proc = forge(*_ask(server, tools_file, "--yes", "--jsonl"))
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    started = next(line for line in lines if line["type"] == "agent.tool_call.started")
    assert started["payload"] == {"call_id": "call_x", "name": "explode",
                                  "arguments": {"reason": "test"}}  # fmt: skip
    failed = next(line["payload"] for line in lines if line["type"] == "agent.tool_call.failed")
    assert failed["kind"] == "exception"
    assert "exploded" in failed["error"]
    assert "\x1b" not in proc.stdout  # escaped in the JSON text
    assert lines[-1]["payload"]["status"] == "completed"
    assert lines[-1]["payload"]["error"] is None


@pytest.mark.parametrize("mode", ["--plain", "--no-stream"])
def test_plain_shows_a_notice_for_blocked_calls_and_the_limit(
    forge: Forge, tools_file: Path, mode: str
) -> None:
    with FakeChatServer() as server:
        _denied_then_limit(server)
        proc = forge(*_ask(server, tools_file, mode, "--max-iterations", "2"))
    assert proc.returncode == 3
    err = proc.stderr
    assert "tool call blocked by approval: cancel_order" in err
    assert "stopped after 2 model requests (the tool iteration limit)" in err
    assert err.strip().splitlines()[-1].startswith("forge: error: ")


def test_plain_shows_a_failed_call_without_escape_codes(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("explode", {"reason": "test"})], ids=["call_x"]))
        server.add(text_chunks("The order could not be found."))
        proc = forge(*_ask(server, tools_file, "--yes", "--plain"))
    assert proc.returncode == 0, proc.stderr
    assert "tool call failed: explode" in proc.stderr
    assert "\x1b" not in proc.stderr


FAILED = {
    "type": "response.failed",
    "response": {"id": "resp_1", "status": "failed",
                 "error": {"code": "vector_store_down", "message": "the store is unavailable"}},
}  # fmt: skip


@pytest.mark.parametrize(
    ("script", "code", "server_code"),
    [
        ([{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
          FAILED], "server_error", "vector_store_down"),
        ([{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
          {"type": "forge.test.raise", "error": "connect"}], "connection_error", None),
        ([{"type": "forge.test.raise", "error": "auth"}], "auth_error", None),
    ],
)  # fmt: skip
@pytest.mark.parametrize("mode", ["--json", "--jsonl"])
def test_a_failed_answer_says_failed_with_a_documented_code(
    forge: Forge,
    script_file: Callable[..., Path],
    script: list[dict[str, Any]],
    code: str,
    server_code: str | None,
    mode: str,
) -> None:
    proc = forge("ask", mode, "q", env={"FORGE_TEST_BACKEND": str(script_file(script))})
    assert proc.returncode == 1
    document = json.loads(proc.stdout) if mode == "--json" else _lines(proc.stdout)[-1]["payload"]
    assert document["status"] == "failed"
    assert document["error"]["code"] == code
    assert document["error"]["server_code"] == server_code


@pytest.mark.pty
def test_rich_mode_at_a_terminal_shows_the_failed_call_and_the_limit(
    tmp_path: Path, tools_file: Path
) -> None:
    """In a real pseudo-terminal (rich mode) the notices show on screen as they happen."""
    import os
    import sys

    import pexpect

    env = {**os.environ, "FORGE_DATA_DIR": str(tmp_path / "data"),
           "FORGE_CONFIG": str(tmp_path / "config.toml"), "NO_COLOR": "1"}  # fmt: skip
    with FakeChatServer() as server:
        for n in range(2):
            server.add(tool_call_chunks([("explode", {"reason": f"r{n}"})], ids=[f"call_{n}"]))
        args = _ask(server, tools_file, "--yes", "--max-iterations", "2")
        child = TerminalSpawn(sys.executable, ["-m", "forge_cli.cli", *args], env=env,
                              encoding="utf-8", timeout=30, dimensions=(40, 120))  # fmt: skip
        try:
            child.expect_exact("tool call failed: explode")
            child.expect_exact("stopped after 2 model requests (the tool iteration limit)")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    assert child.exitstatus == 3


def test_a_tool_less_chat_request_streams_without_the_loop(forge: Forge) -> None:
    """No tools, no agent options: the chat answer streams straight from the server (as over
    the Responses API), so no loop event is written; the answer is the same."""
    with FakeChatServer([text_chunks("Order 4711 has shipped.")]) as server:
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "--model", "fake-model",
            "--jsonl", "Where is order 4711?",
        )  # fmt: skip
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    assert not [line for line in lines if line["type"].startswith("agent.")]
    assert lines[-1]["payload"]["text"] == "Order 4711 has shipped."
    assert lines[-1]["payload"]["status"] == "completed"
