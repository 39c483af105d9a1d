"""``/mcp`` in the REPL lists servers and tools and toggles them; completion knows their names;
``forge doctor`` checks configured servers."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp_helpers import server_command
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from forge_cli.conversations import Conversation
from forge_cli.mcp.config import McpServerSpec
from forge_cli.mcp.manager import McpManager
from forge_cli.protocol.request import Request
from forge_cli.repl.completion import ReplCompleter
from forge_cli.repl.session import ChatSession

pytestmark = pytest.mark.anyio


async def _never(_request: Request) -> AsyncIterator[object]:
    raise AssertionError("no turn expected")
    yield  # pragma: no cover


@pytest.fixture
async def manager() -> AsyncIterator[McpManager]:
    argv = server_command("tools_server")
    mgr = McpManager([McpServerSpec(name="calc", command=argv[0], args=tuple(argv[1:]))])
    yield mgr
    await mgr.aclose()


async def test_mcp_lists_toggles_and_completes(manager: McpManager) -> None:
    out = io.StringIO()
    session = ChatSession(Conversation(), _never, out=out, mcp=manager)
    assert await session.handle_line("/mcp")
    text = out.getvalue()
    assert "calc · stdio · ready · 7 tools · approval ask" in text
    assert "+ calc__add  Add two integers." in text

    assert await session.handle_line("/mcp off calc__add")
    assert "calc__add" not in {t.name for t in manager.current_tools()}
    assert await session.handle_line("/mcp off calc")
    assert manager.current_tools() == []
    assert await session.handle_line("/mcp on calc")
    assert "calc__echo" in {t.name for t in manager.current_tools()}
    assert "calc__add" not in {t.name for t in manager.current_tools()}

    completer = ReplCompleter(session)
    words = [
        c.text for c in completer.get_completions(Document("/mcp on calc__e"), CompleteEvent())
    ]
    assert words == ["calc__echo"]
    servers = [c.text for c in completer.get_completions(Document("/mcp off c"), CompleteEvent())]
    assert "calc" in servers


async def test_mcp_without_servers_is_one_clear_line() -> None:
    out = io.StringIO()
    session = ChatSession(Conversation(), _never, out=out)
    assert await session.handle_line("/mcp")
    assert "no MCP servers in this session" in out.getvalue()


def test_doctor_checks_configured_servers(tmp_path: Path) -> None:
    argv = server_command("tools_server")
    config = tmp_path / "config.toml"
    config.write_text(
        "[mcp.servers.calc]\n"
        f"command = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\n"
        "[mcp.servers.ghost]\ncommand = '/nonexistent/mcp-server'\n"
    )
    env = {**os.environ, "FORGE_CONFIG": str(config), "FORGE_DATA_DIR": str(tmp_path / "d")}
    proc = subprocess.run(
        [sys.executable, "-m", "forge_cli.cli", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert "ok    mcp:calc stdio, 7 tools, approval ask" in proc.stdout
    assert "FAIL  mcp:ghost failed:" in proc.stdout
    assert "Traceback" not in proc.stderr
