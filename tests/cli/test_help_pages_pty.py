"""Every help page fits the terminal: at 40 columns click's pages (laid out at least 50 wide,
long options and ``\\b`` lines never wrapped) were cut mid-word by the terminal, and the
longest options (``-t, --tool [file-search|...]``) even at 80. Asserted on the rendered screen
(pyte) of a real pseudo-terminal: no line reaches the right edge (a soft wrap), and the long
option and the exit-code table read whole."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

ROWS = 400

EXIT_141 = "141 output closed by its reader (| head); the answer so far is saved"
PAGES = [
    ([], ["Show this message and exit.", EXIT_141]),
    (
        ["ask"],
        ["-t, --tool [file-search|web-search|list-documents|", "code-interpreter]", EXIT_141],
    ),
    (["chat"], ["Resume the latest conversation.", EXIT_141]),
    (["vs", "create"], ["Create a vector store NAME, optionally uploading PATHS"]),
    (["eval"], ["1 the pass rate is below --min-pass", '"tools_in_order": false,']),
    (["templates"], ["A template is NAME.md in the templates folder next to the config file"]),
]


def _screen(tmp_path: Path, args: list[str], columns: int) -> list[str]:
    env = {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    env.pop("COLUMNS", None)
    child = TerminalSpawn(
        sys.executable,
        ["-m", "forge_cli.cli", *args, "--help"],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(ROWS, columns),
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    screen = pyte.Screen(columns, ROWS)
    pyte.Stream(screen).feed((child.before or "").replace("\r\n", "\n").replace("\n", "\r\n"))
    return [line.rstrip() for line in screen.display if line.strip()]


@pytest.mark.parametrize("columns", [40, 80, 100, 200])
@pytest.mark.parametrize(("args", "phrases"), PAGES)
def test_help_pages_fit_the_terminal(
    tmp_path: Path, columns: int, args: list[str], phrases: list[str]
) -> None:
    lines = _screen(tmp_path, args, columns)
    assert lines[0].startswith("Usage: forge")
    for line in lines:
        assert len(line) < columns, line  # a full row is the terminal wrapping the line
    words = " ".join(" ".join(line.strip() for line in lines).split())
    joined = words.replace("| ", "|")  # a long option breaks after a "|"
    for phrase in phrases:
        assert phrase.replace("| ", "|") in joined, words
