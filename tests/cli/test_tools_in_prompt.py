"""Issue 15 item 2: a prompt-based tool mode for servers that refuse the `tools` field —
chosen explicitly, or automatically after the server's HTTP 400 naming tools."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forge_cli.testing.fake_chat_server import ChatReply, FakeChatServer, text_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]

TOOLS = '''
from forge_cli.tools import tool


@tool(read_only=True)
def lookup_order(order_id: int) -> str:
    """Look up an order.

    Args:
        order_id: The order number.
    """
    return f"order {order_id}: shipped"
'''

REFUSAL = ChatReply(status=400, body={"error": {"message": "tools param requires --jinja flag"}})
CALL = '<tool_call>{"name": "lookup_order", "arguments": {"order_id": 4711}}</tool_call>'


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS)
    return path


def _ask(forge: Forge, server: FakeChatServer, tools: Path, *extra: str) -> Any:
    return forge(
        "ask", "--api", "chat", "--base-url", server.base_url, "-m", "m",
        "--functions", str(tools), "--jsonl", *extra, "Where is order 4711?",
    )  # fmt: skip


def _check_prompt_mode(requests: list[dict[str, Any]]) -> None:
    first, second = requests
    for body in (first, second):
        assert "tools" not in body
        assert not any(m["role"] == "tool" for m in body["messages"])
        assert "<tool_call>" in body["messages"][0]["content"]
        assert "lookup_order" in body["messages"][0]["content"]
    replay = second["messages"][-2:]
    assert replay[0]["role"] == "assistant"
    call = replay[0]["content"].removeprefix("<tool_call>").removesuffix("</tool_call>")
    assert json.loads(call) == {"name": "lookup_order", "arguments": {"order_id": 4711}}
    assert replay[1]["role"] == "user"
    assert "<tool_response>\norder 4711: shipped\n</tool_response>" in replay[1]["content"]


def test_after_a_400_naming_tools_forge_describes_them_in_the_prompt(
    forge: Forge, tools_file: Path
) -> None:
    with FakeChatServer() as server:
        server.add(REFUSAL)
        server.add(text_chunks(f"Let me check. {CALL}"))
        server.add(text_chunks("Order 4711 has shipped."))
        proc = _ask(forge, server, tools_file)
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    assert "tools" in server.requests[0]  # the first try was native
    _check_prompt_mode(server.requests[1:])
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    notices = [line for line in lines if line["type"] == "agent.notice"]
    assert any("describing the tools in the prompt" in n["payload"]["message"] for n in notices)
    assert lines[-1]["payload"]["text"].endswith("Order 4711 has shipped.")


def test_tools_in_prompt_chosen_explicitly(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks(CALL))
        server.add(text_chunks("Order 4711 has shipped."))
        proc = _ask(forge, server, tools_file, "--tools-in-prompt")
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    _check_prompt_mode(server.requests)


def test_no_tools_in_prompt_keeps_the_servers_refusal(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        server.add(REFUSAL)
        proc = _ask(forge, server, tools_file, "--no-tools-in-prompt")
    assert proc.returncode == 1
    assert "--jinja" in proc.stderr
