"""End to end (issue 5): `forge ask --api chat ... --functions tools.py` against a loopback
OpenAI-compatible server — the user's function runs, the call shows in the rendered output and in
`--json`; without `--yes` a non-interactive run denies it and says so on stderr."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

TOOLS = '''
from forge_cli.tools import tool


@tool
def lookup_order(order_id: int) -> str:
    """Look up an order.

    Args:
        order_id: The order number.
    """
    return f"order {order_id}: shipped on 2026-11-20 by parcel post"
'''

Forge = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS)
    return path


def _script(server: FakeChatServer) -> None:
    # The model passes the id as a string: the executor's lenient fix turns it into an int.
    server.add(tool_call_chunks([("lookup_order", {"order_id": "4711"})]))
    server.add(text_chunks("Order 4711 shipped on 20 November by parcel post."))


def _args(server: FakeChatServer, tools_file: Path, *extra: str) -> list[str]:
    return [
        "ask",
        "--api",
        "chat",
        "--base-url",
        server.base_url,
        "--model",
        "fake-model",
        "--functions",
        str(tools_file),
        *extra,
        "Where is order 4711?",
    ]


def test_ask_runs_the_users_function_and_prints_the_answer(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        _script(server)
        proc = forge(*_args(server, tools_file, "--yes", "--plain"))
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    assert "Order 4711 shipped on 20 November by parcel post." in proc.stdout
    assert "lookup_order" in proc.stderr  # the tool-call status line
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "shipped on 2026-11-20" in tool_message["content"]


def test_the_call_is_in_the_json_document(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        _script(server)
        proc = forge(*_args(server, tools_file, "--yes", "--json"))
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["text"] == "Order 4711 shipped on 20 November by parcel post."
    calls = [item for item in document["items"] if item["type"] == "function_call"]
    assert [call["name"] for call in calls] == ["lookup_order"]
    assert calls[0]["arguments"] == {"order_id": "4711"}
    # The function_call_output is paired with its call: its text is the call's result.
    assert "shipped on 2026-11-20" in json.dumps(calls[0]["result"])
    assert calls[0]["status"] == "completed"


def test_without_yes_a_non_interactive_run_denies_the_function(
    forge: Forge, tools_file: Path
) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        server.add(text_chunks("I could not look the order up."))
        proc = forge(*_args(server, tools_file, "--plain"), input="")
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    assert "denied" in proc.stderr.lower()
    assert "lookup_order" in proc.stderr
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "shipped" not in tool_message["content"]
    assert "denied" in tool_message["content"].lower()


@pytest.mark.pty
def test_at_a_terminal_forge_ask_asks_and_n_denies(tmp_path: Path, tools_file: Path) -> None:
    """In a real pseudo-terminal `forge ask` (no --yes) shows the call and asks; `n` denies."""
    import os
    import sys

    import pexpect

    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "NO_COLOR": "1",
    }
    with FakeChatServer() as server:
        _script(server)
        child = TerminalSpawn(
            sys.executable,
            ["-m", "forge_cli.cli", *_args(server, tools_file)],
            env=env,
            encoding="utf-8",
            timeout=30,
            dimensions=(30, 100),
        )
        try:
            child.expect_exact("Allow? [y]es, [N]o, [a]lways for lookup_order: ")
            assert "Tool call: lookup_order" in (child.before or "")
            child.sendline("n")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        server.assert_consumed()
    tool_message = server.requests[1]["messages"][-1]
    assert "denied" in tool_message["content"].lower()


def test_the_iteration_limit_ends_the_run_with_exit_code_3(forge: Forge, tools_file: Path) -> None:
    """A model that keeps calling tools: the loop stops at --max-iterations and says so."""
    with FakeChatServer() as server:
        for n in range(2):
            server.add(tool_call_chunks([("lookup_order", {"order_id": n})], ids=[f"call_{n}"]))
        proc = forge(*_args(server, tools_file, "--yes", "--plain", "--max-iterations", "2"))
        server.assert_consumed()
    assert proc.returncode == 3, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith("forge: error: ")
    assert "iteration" in lines[-1]
    assert sum(line.startswith("forge: error:") for line in lines) == 1


CLASS_TOOLS = '''
from pydantic import BaseModel
from forge_cli.tools import BaseTool


class CarrierArgs(BaseModel):
    order_id: int


class Carrier(BaseTool):
    """Class-based tool, defined but never instantiated in the file."""

    name = "carrier"
    description = "The carrier of an order."
    args_schema = CarrierArgs
    read_only = True

    async def run(self, args):
        return f"order {args.order_id} travels with Parcel Post"
'''


def test_functions_is_repeatable_and_finds_class_tools(
    forge: Forge, tools_file: Path, tmp_path: Path
) -> None:
    second = tmp_path / "carrier.py"
    second.write_text(CLASS_TOOLS)
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("carrier", {"order_id": 4711})]))
        server.add(text_chunks("Parcel Post."))
        args = _args(server, tools_file, "--functions", str(second), "--yes", "--json")
        proc = forge(*args)
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    offered = [entry["function"]["name"] for entry in server.requests[0]["tools"]]
    assert "lookup_order" in offered
    assert "carrier" in offered
    assert "travels with Parcel Post" in server.requests[1]["messages"][-1]["content"]


def test_a_class_tool_that_needs_arguments_is_one_line_exit_2(forge: Forge, tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        CLASS_TOOLS.replace(
            "    read_only = True\n", "    def __init__(self, db):\n        super().__init__()\n"
        )
    )
    proc = forge(
        "ask",
        "--api",
        "chat",
        "--base-url",
        "http://127.0.0.1:9",
        "--model",
        "m",
        "--functions",
        str(bad),
        "hi",
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Carrier" in lines[0]
    assert "db" in lines[0]
