"""``forge chat --mcp`` in a real pseudo-terminal, the screen read back with pyte: the MCP call
drawn live, ``/mcp``, and Ctrl+C in the middle of a hanging MCP call (the chat goes on)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from mcp_helpers import server_command

from cli.test_terminal import Terminal  # type: ignore[import-not-found]
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

pytestmark = pytest.mark.pty

CALC = "calc=" + shlex.join(server_command("tools_server"))


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "OPENAI_API_KEY": "sk-test-not-real",
        "EDITOR": "true",
    }


def test_chat_draws_mcp_calls_and_survives_ctrl_c(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__steps", {"count": 3})]))
        server.add(text_chunks("Three steps done."))
        server.add(tool_call_chunks([("calc__hang", {})]))
        args = ["chat", "--api", "chat", "--base-url", server.base_url, "--model", "m"]
        term = Terminal([*args, "--mcp", CALC, "--yes"], _env(tmp_path))
        term.wait_for("forge>")

        term.line("run the steps")
        screen = term.wait_for("Three steps done.")
        assert "✓ MCP · completed · calc/steps(count=3)" in screen
        assert "→ did 3 steps" in screen

        term.line("/mcp")
        screen = term.wait_for("+ calc__hang")
        assert "calc · stdio · ready · 7 tools · approval ask" in screen

        term.line("now hang")
        term.wait_for_screen("MCP · in progress · calc/hang()")
        term.child.sendcontrol("c")
        term.wait_for_screen("interrupted")

        mark = len(term.transcript)
        term.line("/mcp off calc")
        term.wait_for("MCP server calc off")
        term.wait_for_prompt(since=mark)
        term.child.sendcontrol("d")
        assert term.finish() == 0
        server.assert_consumed()
