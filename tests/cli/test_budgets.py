"""Issue 15 item 4: a time budget and a token budget stop an agent run with their own status,
error code and exit code, keeping the answer so far; the iteration limit counts real requests."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import (
    FakeChatServer,
    chunk,
    text_chunks,
    tool_call_chunks,
)
from helpers.loopback import AwaitDisconnect, LoopbackServer, Reply, sse  # type: ignore[import-not-found]

Forge = Callable[..., subprocess.CompletedProcess[str]]

TOOLS = '''
from forge_cli.tools import tool

RAN = []


@tool(read_only=True)
def lookup_order(order_id: int) -> str:
    """Look up an order."""
    return f"order {order_id}: shipped"
'''


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS)
    return path


def test_the_token_budget_stops_before_more_work(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 1})]))  # reports 15 tokens
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "-m", "m",
            "--functions", str(tools_file), "--token-budget", "10", "--json", "Where is 1?",
        )  # fmt: skip
        server.assert_consumed()  # no second request: the budget was used up
    assert proc.returncode == 5, proc.stderr
    document = json.loads(proc.stdout)
    assert document["status"] == "incomplete"
    assert document["error"]["code"] == "token_budget"
    [call] = [item for item in document["items"] if item["type"] == "function_call"]
    assert call["status"] == "incomplete"  # recorded, not run
    assert "token budget" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_time_budget_stops_a_silent_stream_and_keeps_the_partial_answer(
    forge: Forge,
) -> None:
    with LoopbackServer() as server:
        server.add(
            Reply.sse(
                [
                    sse(chunk({"role": "assistant", "content": ""})),
                    sse(chunk({"content": "The first half"})),
                    AwaitDisconnect(),  # then the model goes silent
                ]
            )
        )
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "-m", "m",
            "--max-time", "3", "--jsonl", "Tell me everything.",
        )  # fmt: skip
    assert proc.returncode == 4, proc.stderr
    assert len(server.requests) == 1
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    [exhausted] = [line for line in lines if line["type"] == "agent.budget.exhausted"]
    assert exhausted["payload"]["budget"] == "time"
    assert exhausted["payload"]["limit"] == 3
    document = lines[-1]["payload"]
    assert document["text"] == "The first half"
    assert document["status"] == "incomplete"
    assert document["error"]["code"] == "time_budget"


def test_a_budget_that_is_not_reached_changes_nothing(forge: Forge) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("All done."))
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "-m", "m",
            "--max-time", "60", "--token-budget", "100000", "--plain", "Hi",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "All done."


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--max-time", "0"], "--max-time"), (["--token-budget", "0"], "--token-budget")],
)
def test_bad_budgets_are_usage_errors(forge: Forge, args: list[str], message: str) -> None:
    proc = forge("ask", *args, "q")
    assert proc.returncode == 2
    assert message in proc.stderr
