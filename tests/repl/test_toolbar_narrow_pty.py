"""The chat's bottom toolbar fits a narrow terminal (asserted on the pyte-rendered screen of a
real pty): at 40 columns ``m │ functions │ no vector stores │ 0 tokens`` was cut at the right
edge (``… │ 0 t``), so the token count, the one figure that changes, was lost."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pexpect
import pyte
import pytest

from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

ROWS = 24
READY = b"\x1b[?2004h"  # the line editor is reading


def _screen(tmp_path: Path, columns: int) -> list[str]:
    tools = tmp_path / "tools.py"
    tools.write_text('def ping() -> str:\n    """Ping."""\n    return "pong"\n')
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
    }
    args = ["-m", "forge_cli.cli", "chat", "--api", "chat", "--base-url",
            "http://127.0.0.1:9/v1", "--model", "m", "--functions", str(tools)]  # fmt: skip
    screen = pyte.Screen(columns, ROWS)
    stream = pyte.ByteStream(screen)
    child = TerminalSpawn(sys.executable, args, env=env, dimensions=(ROWS, columns))
    seen = b""
    try:
        deadline = time.monotonic() + 30
        while not (READY in seen and "│" in screen.display[-1]):
            assert time.monotonic() < deadline, "\n".join(screen.display)
            try:
                data = child.read_nonblocking(65536, timeout=1.0)
            except pexpect.TIMEOUT:
                continue
            seen += data
            stream.feed(data)
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    return [line.rstrip() for line in screen.display]


@pytest.mark.parametrize("columns", [40, 100])
def test_the_toolbar_keeps_the_token_count_whole(tmp_path: Path, columns: int) -> None:
    bottom = _screen(tmp_path, columns)[-1]
    assert bottom.endswith("│ 0 tokens"), bottom
    assert bottom.lstrip().startswith("m │ functions │ "), bottom
