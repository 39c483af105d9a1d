"""Issue 4's promise, end to end: on a fresh machine (an empty HOME, no config, no server, no key,
no network) `forge ask "How do I enable web search?"` exits 0 with an answer citing forge-docs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Refuses every non-loopback connection in the child process, like the suite's guard does here.
GUARD = """
import socket, runpy, sys
real = socket.socket.connect
def connect(self, address):
    host = address[0] if isinstance(address, tuple) else ""
    if isinstance(address, tuple) and host not in ("127.0.0.1", "::1", "localhost"):
        raise ConnectionRefusedError(f"no network in this test: {address!r}")
    return real(self, address)
socket.socket.connect = connect
sys.argv = ["forge", *sys.argv[1:]]
runpy.run_module("forge_cli.cli", run_name="__main__")
"""


def _fresh_env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("FORGE_", "OPENAI_", "XDG_")) and k != "KNOWLEDGE_FORGE_URL"
    }
    env["HOME"] = str(home)
    return env


def test_fresh_home_answers_about_web_search_from_forge_docs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", GUARD, "ask", "--json", "How do I enable web search?"],
        env=_fresh_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["status"] == "completed"
    assert "web search" in document["text"].lower()
    cited = {citation["filename"] for citation in document["citations"]}
    assert "02-tools.md" in cited  # the forge-docs page about tools
    # The local engine created its store under the fresh HOME, nowhere else.
    assert any(home.rglob("knowledge.db"))
