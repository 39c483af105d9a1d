"""Issue 14 item 7: NO_COLOR removes colour, not Markdown (no-color.org); TERM=dumb is plain.
Asserted on the raw escape codes (colour) and on the rendered screen (pyte) in a real pty."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

ANSWER = "Intro line.\n\n- first **bold** item\n- second item\n\n`code` here."
COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|38;|48;)[0-9;]*m")


def _run(tmp_path: Path, extra_env: dict[str, str]) -> tuple[str, str]:
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm-256color",
        **extra_env,
    }
    with FakeChatServer() as server:
        server.add(text_chunks(ANSWER))
        args = ["-m", "forge_cli.cli", "ask", "--api", "chat", "--base-url", server.base_url,
                "--model", "m", "Show me a list."]  # fmt: skip
        child = TerminalSpawn(
            sys.executable, args, env=env, encoding="utf-8", timeout=30, dimensions=(30, 100)
        )
        child.expect(pexpect.EOF)
        child.close()
    raw = child.before or ""
    screen = pyte.Screen(100, 30)
    pyte.Stream(screen).feed(raw)
    return raw, "\n".join(line.rstrip() for line in screen.display)


def test_no_color_keeps_markdown_and_drops_colour(tmp_path: Path) -> None:
    raw, text = _run(tmp_path, {"NO_COLOR": "1"})
    assert "• first bold item" in text  # Markdown rendered: a bullet, no ** markers
    assert "**" not in text
    assert not COLOUR.search(raw)


def test_term_dumb_is_plain_text(tmp_path: Path) -> None:
    raw, text = _run(tmp_path, {"TERM": "dumb"})
    assert "- first **bold** item" in text  # the answer as written
    assert "\x1b[" not in raw


@pytest.mark.parametrize("columns", [40, 100, 200])
def test_prose_wraps_at_a_readable_width(tmp_path: Path, columns: int) -> None:
    prose = " ".join(f"word{n}" for n in range(120))
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm-256color",
    }
    with FakeChatServer() as server:
        server.add(text_chunks(prose))
        args = ["-m", "forge_cli.cli", "ask", "--api", "chat", "--base-url", server.base_url,
                "--model", "m", "Talk."]  # fmt: skip
        child = TerminalSpawn(
            sys.executable, args, env=env, encoding="utf-8", timeout=30, dimensions=(60, columns)
        )
        child.expect(pexpect.EOF)
        child.close()
    screen = pyte.Screen(columns, 60)
    pyte.Stream(screen).feed(child.before or "")
    lines = [line.rstrip() for line in screen.display if line.strip().startswith("word")]
    assert " ".join(" ".join(lines).split()) == prose  # every word, in order, none cut
    assert max(len(line) for line in lines) <= min(columns, 100)
    if columns == 200:
        assert max(len(line) for line in lines) > 90  # uses the measure, not a narrow column
