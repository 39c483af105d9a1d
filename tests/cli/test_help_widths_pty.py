"""Issue 14 item 7: `/help` in `forge chat` fits the terminal at 40, 100 and 200 columns —
descriptions wrap at word boundaries under their own column, never back to column 0 — asserted
on the rendered screen (pyte) of a real pseudo-terminal."""

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

ROWS = 80


def _read_until(
    child: pexpect.spawn, stream: pyte.ByteStream, seen: list[str], needle: str
) -> None:
    deadline = time.monotonic() + 20
    while needle not in "".join(seen):
        if time.monotonic() > deadline:
            raise AssertionError(f"{needle!r} never appeared")
        try:
            data = child.read_nonblocking(65536, timeout=1.0)
        except pexpect.TIMEOUT:
            continue
        stream.feed(data)
        seen.append(data.decode("utf-8", "replace"))


@pytest.mark.parametrize("columns", [40, 100, 200])
def test_help_fits_the_terminal(tmp_path: Path, columns: int) -> None:
    env = {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    screen = pyte.Screen(columns, ROWS)
    stream = pyte.ByteStream(screen)
    child = TerminalSpawn(
        sys.executable, ["-m", "forge_cli.cli", "chat"], env=env, dimensions=(ROWS, columns)
    )
    seen: list[str] = []
    try:
        _read_until(child, stream, seen, "\x1b[?2004h")  # the line editor is ready
        child.send("/help\r")
        _read_until(child, stream, seen, "Commands (")
        _read_until(child, stream, seen, "Keys: Alt+Enter")
        lines = [line.rstrip() for line in screen.display]
        child.send("/exit\r")
        child.expect(pexpect.EOF, timeout=15)
    finally:
        child.close(force=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("Commands ("))
    end = next(i for i, line in enumerate(lines) if line.startswith("Keys:"))
    body = [line for line in lines[start + 1 : end] if line]
    assert len(body) >= 20
    for line in body:
        # Every row is a command (indented by 2) or a continuation (indented further):
        # nothing wrapped back to column 0, and no word was cut at the edge.
        assert line.startswith("  "), line
        assert len(line) < columns, line
    words = " ".join(" ".join(body).split())
    assert "Start over with the same settings; the transcript so far stays saved" in words
    header = " ".join(" ".join(lines[start : start + 2]).split())
    assert header.startswith("Commands (//text sends a message starting with /):")
