"""Issue 12: in `forge chat`, a user tool's raw writes to fds 1 and 2 are shown sanitised (no
escape sequence of theirs reaches the terminal), and the chat goes on — in a real pty."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pexpect
import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

TOOLS = """
import os
from forge_cli.tools import tool


@tool(read_only=True)
def raw() -> str:
    '''Writes escape sequences straight to the terminal's file descriptors.'''
    os.write(1, b"\\x1b]52;c;c3RvbGVu\\x07one")
    os.write(2, b"\\x1b[2Jtwo\\n")
    return "done"
"""


def test_raw_fd_writes_of_a_tool_are_neutralised_in_the_chat(tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    env = {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("raw", {})]))
        server.add(text_chunks("The tool ran."))
        args = ["-m", "forge_cli.cli", "chat", "--api", "chat", "--base-url", server.base_url,
                "-m", "m", "--functions", str(tools)]  # fmt: skip
        child = TerminalSpawn(sys.executable, args, env=env, dimensions=(40, 100))
        seen = b""
        try:
            deadline = time.monotonic() + 30

            def until(needle: bytes, count: int = 1) -> None:
                nonlocal seen
                while seen.count(needle) < count:
                    assert time.monotonic() < deadline, seen[-2000:]
                    try:
                        seen += child.read_nonblocking(65536, timeout=1.0)
                    except pexpect.TIMEOUT:
                        continue

            until(b"\x1b[?2004h")
            child.send("run the tool\r")
            until(b"The tool ran.")
            until(b"\x1b[?2004h", 2)
            child.send("/exit\r")
            child.expect(pexpect.EOF, timeout=15)
        finally:
            child.close(force=True)
    assert b"\x1b]52" not in seen  # no clipboard write reached the terminal
    assert b"\x1b[2J" not in seen  # no screen clear
    assert b"one" in seen
    assert b"two" in seen
