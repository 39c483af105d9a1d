"""The first screen of `forge chat` on a fresh machine (the built-in engine, no model): it says
that answers will be quotes, not written answers, and what to do next (add documents, add a
model), fitted to the terminal. Before, it said only `forge chat · ID · /help for commands,
Ctrl+D quits` (cut mid-word at 40 columns). Asserted on the rendered screen (pyte) of a real
pseudo-terminal."""

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

ROWS = 30


def _first_screen(tmp_path: Path, columns: int, env_extra: dict[str, str]) -> list[str]:
    env = {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        **env_extra,
    }
    screen = pyte.Screen(columns, ROWS)
    stream = pyte.ByteStream(screen)
    child = TerminalSpawn(
        sys.executable, ["-m", "forge_cli.cli", "chat"], env=env, dimensions=(ROWS, columns)
    )
    seen = b""
    try:
        deadline = time.monotonic() + 60
        while b"\x1b[?2004h" not in seen:  # the line editor is ready
            assert time.monotonic() < deadline, seen
            try:
                data = child.read_nonblocking(65536, timeout=1.0)
            except pexpect.TIMEOUT:
                continue
            stream.feed(data)
            seen += data
        lines = [line.rstrip() for line in screen.display]
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    top = lines[: next(i for i, line in enumerate(lines) if line.startswith("forge>"))]
    return [line for line in top if line]


@pytest.mark.parametrize("columns", [40, 100, 200])
def test_a_fresh_chat_says_there_is_no_model_and_what_to_do(tmp_path: Path, columns: int) -> None:
    lines = _first_screen(tmp_path, columns, {})
    for line in lines:
        assert len(line) < columns, line  # a full row is the terminal wrapping the line
    words = " ".join(" ".join(lines).split())
    assert words.startswith("forge chat · c")
    assert "/help for commands, Ctrl+D quits" in words
    assert "No language model is configured: answers quote the passages of your documents" in words
    assert "/upload PATH adds documents" in words
    assert "forge config set engine.upstream_base_url URL" in words


def test_a_chat_with_a_model_has_no_such_line(tmp_path: Path) -> None:
    lines = _first_screen(
        tmp_path,
        100,
        {"FORGE_UPSTREAM_BASE_URL": "http://127.0.0.1:9/v1", "FORGE_UPSTREAM_MODEL": "m"},
    )
    assert "No language model" not in " ".join(lines)
    assert lines[0].startswith("forge chat · c")
