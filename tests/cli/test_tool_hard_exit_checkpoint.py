"""A tool that ends the process with ``os._exit`` (issue 29): Forge cannot report it, but the
saved conversation says the turn ended while running that tool."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from forge_cli.testing.fake_chat_server import FakeChatServer, tool_call_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]

TOOLS = '''
import os

from forge_cli.tools import tool


@tool
def vanish() -> str:
    """Ends the process at once."""
    os._exit(0)
'''


def test_a_hard_exit_in_a_tool_leaves_the_turn_saved_as_ended_in_that_tool(
    forge: Forge, tmp_path: Path
) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS, encoding="utf-8")
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("vanish", {})]))
        args = ["chat", "--api", "chat", "--base-url", server.base_url, "--model", "m"]
        proc = forge(*args, "--functions", str(tools), "--yes", input="please vanish\n")
    assert proc.returncode == 0  # os._exit(0): nothing Forge could report
    saved = list((tmp_path / "data" / "conversations").glob("*.json"))
    assert len(saved) == 1, saved
    turns = json.loads(saved[0].read_text(encoding="utf-8"))["turns"]
    assert turns[-1]["user"] == "please vanish"
    assert turns[-1]["status"] == "interrupted"
    assert "running tool vanish" in turns[-1]["error"]
