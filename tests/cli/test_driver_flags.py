"""Issue 15 item 1: the agent drivers and tool-calling options from the command line, end to
end over a loopback Chat Completions server; each driver's decisions are shown as items."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

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


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS)
    return path


def _ask(forge: Forge, server: FakeChatServer, tools: Path, *extra: str) -> dict[str, Any]:
    proc = forge(
        "ask", "--api", "chat", "--base-url", server.base_url, "--model", "main-model",
        "--functions", str(tools), "--json", *extra, "Where is order 4711?",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    document: dict[str, Any] = json.loads(proc.stdout)
    return document


def test_tool_choice_and_parallel_calls_reach_the_request(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        server.add(text_chunks("Shipped."))
        _ask(forge, server, tools_file, "--tool-choice", "required", "--no-parallel-tools")
    first, second = server.requests
    assert first["tool_choice"] == "required"
    assert first["parallel_tool_calls"] is False
    assert second["tool_choice"] == "auto"  # required only for the first turn: no endless loop


def test_tool_choice_by_name(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        server.add(text_chunks("Shipped."))
        _ask(forge, server, tools_file, "--tool-choice", "lookup_order")
    assert server.requests[0]["tool_choice"] == {
        "type": "function",
        "function": {"name": "lookup_order"},
    }


def test_the_react_driver_shows_its_thoughts(forge: Forge, tools_file: Path) -> None:
    call = {"type": "call_tool", "tool": "lookup_order", "args": {"order_id": 4711},
            "thought": "I should look the order up."}  # fmt: skip
    final = {"type": "final_answer", "answer": "Order 4711 has shipped.",
             "thought": "The tool says shipped."}  # fmt: skip
    with FakeChatServer() as server:
        server.add(text_chunks(json.dumps(call)))
        server.add(text_chunks(json.dumps(final)))
        document = _ask(forge, server, tools_file, "--driver", "react")
    first = server.requests[0]
    assert "tools" not in first  # the ReAct protocol is text: no tool definitions sent
    assert "lookup_order" in first["messages"][0]["content"]
    assert document["text"] == "Order 4711 has shipped."
    kinds = [item["type"] for item in document["items"]]
    assert "reasoning" in kinds
    assert "function_call" in kinds
    assert "I should look the order up." in json.dumps(document["items"])


def test_the_evaluator_driver_uses_its_models_and_shows_its_verdict(
    forge: Forge, tools_file: Path
) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        server.add(text_chunks('{"decision": "FINISHED", "reason": "the status is known"}'))
        server.add(text_chunks("Order 4711 has shipped."))
        document = _ask(
            forge, server, tools_file, "--driver", "evaluator",
            "--evaluator-model", "judge-model", "--output-model", "writer-model",
        )  # fmt: skip
    models = [request["model"] for request in server.requests]
    assert models == ["main-model", "judge-model", "writer-model"]
    assert document["text"] == "Order 4711 has shipped."
    assert "Evaluator: FINISHED. the status is known" in json.dumps(document["items"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--evaluator-model", "j"], "--evaluator-model needs --driver evaluator"),
        (["--driver", "sideways"], "Invalid value for '--driver'"),
        (["--tool-choice", "not a name!"], "expected auto, required, none or a tool name"),
    ],
)
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_bad_driver_options_are_usage_errors(
    forge: Forge, api: str, args: list[str], message: str
) -> None:
    proc = forge("ask", "--api", api, "--base-url", "http://127.0.0.1:9/v1", "-m", "m", *args, "q")
    assert proc.returncode == 2
    assert message in proc.stderr
