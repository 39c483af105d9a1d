"""``forge chat`` on a terminal that never answers cursor position requests (some serial
consoles, ``expect``-style wrappers): prompt-toolkit asks at each prompt, gives up after
``Renderer.CPR_TIMEOUT`` (2 s) and then printed "WARNING: your terminal doesn't support cursor
position requests (CPR)." over the chat, a line the user can do nothing about. Forge logs it
instead (``--debug``); the prompt stays as it was. Asserted on the pyte-rendered screen of a real
pty that, unlike ``helpers.terminal.TerminalSpawn``, answers nothing.

The test watches the screen for the whole window in which prompt-toolkit's timer fires (its
timeout plus a margin): what must not appear can only be checked by letting that time pass.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pexpect
import pyte
import pytest
from prompt_toolkit.renderer import Renderer

pytestmark = pytest.mark.pty

ROWS, COLUMNS = 24, 80
READY = b"\x1b[?2004h"  # the line editor is reading
WINDOW = Renderer.CPR_TIMEOUT + 1.5


def test_no_cpr_warning_on_a_terminal_that_never_answers(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
    }
    env.pop("PROMPT_TOOLKIT_NO_CPR", None)
    args = ["-m", "forge_cli.cli", "chat", "--api", "chat", "--base-url",
            "http://127.0.0.1:9/v1", "--model", "m"]  # fmt: skip
    screen = pyte.Screen(COLUMNS, ROWS)
    stream = pyte.ByteStream(screen)
    child = pexpect.spawn(sys.executable, args, env=env, dimensions=(ROWS, COLUMNS))
    seen = b""
    try:
        deadline = time.monotonic() + 30
        while READY not in seen:
            assert time.monotonic() < deadline, "\n".join(screen.display)
            try:
                data = child.read_nonblocking(65536, timeout=1.0)
            except pexpect.TIMEOUT:
                continue
            seen += data
            stream.feed(data)
        assert b"\x1b[6n" in seen  # prompt-toolkit did ask (else this test would prove nothing)
        watch_until = time.monotonic() + WINDOW
        while (left := watch_until - time.monotonic()) > 0:
            try:
                data = child.read_nonblocking(65536, timeout=left)
            except pexpect.TIMEOUT:
                break
            seen += data
            stream.feed(data)
        shown = "\n".join(line.rstrip() for line in screen.display)
        assert "CPR" not in shown, shown
        assert "WARNING" not in shown, shown
        assert any(line.startswith("forge> ") or line == "forge>" for line in
                   (row.rstrip() for row in screen.display)), shown  # fmt: skip
        child.sendeof()
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
