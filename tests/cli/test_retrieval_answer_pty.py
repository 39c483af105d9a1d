"""The retrieval-only answer as a user sees it: its quotes render their inline code whole.

A sentence split inside a code span (``PATH... [--vs ID]`` ends like a sentence) left a quote
with an odd number of backticks, and the rest paired the wrong way: the screen showed
"[--vs ID]uploads files, with progress;/docslists the documents". Asserted on the rendered
screen (pyte) of ``forge ask`` in a real pseudo-terminal."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from forge_cli.knowledge import KnowledgeStore
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

GUIDE = b"""# Chat session

- `/vs list`, `/vs use ID`, `/vs add ID`, `/vs remove ID`, `/vs clear` choose vector stores.
- `/upload PATH... [--vs ID]` uploads files, with progress; `/docs` lists the documents of the
  active vector stores; `/search QUERY` searches them.
"""


@pytest.mark.parametrize("columns", [40, 100, 200])
def test_quoted_inline_code_renders_whole(tmp_path: Path, columns: int) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    with KnowledgeStore(data / "knowledge.db") as store:
        vs = store.create_vector_store("guide").id
        store.add_file(GUIDE, "chat.md", vector_store_id=vs)
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(data),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm-256color",
    }
    args = [
        "-m",
        "forge_cli.cli",
        "ask",
        "--vs",
        "guide",
        "what lists the documents of the active stores",
    ]
    child = TerminalSpawn(
        sys.executable, args, env=env, encoding="utf-8", timeout=60, dimensions=(60, columns)
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    screen = pyte.Screen(columns, 60)
    pyte.Stream(screen).feed(child.before or "")
    lines = [line.strip(" ▌") for line in screen.display]
    words = " ".join(" ".join(lines).split())
    assert "[--vs ID] uploads files, with progress; /docs lists the" in words
    assert "/search QUERY searches them." in words
    assert "`" not in words
