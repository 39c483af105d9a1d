"""Issue 14 item 7: shell completion knows store names and ids and conversation ids."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]


def _complete(forge: Forge, words: str) -> list[str]:
    parts = words.split(" ")
    env = {
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
        "_FORGE_COMPLETE": "bash_complete",
    }
    proc = forge(env=env)
    assert proc.returncode == 0, proc.stderr
    return [line.split(",", 1)[1] for line in proc.stdout.splitlines() if "," in line]


def test_vector_store_names_and_ids_complete(forge: Forge, tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("notes\n")
    assert forge("vs", "create", "pets", str(doc)).returncode == 0
    values = _complete(forge, "forge ask --vs p")
    assert values == ["pets"]
    assert any(value.startswith("vs_") for value in _complete(forge, "forge ask --vs vs_"))


def test_conversation_ids_complete(forge: Forge) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Hi."))
        assert (
            forge("ask", "--api", "chat", "--base-url", server.base_url, "-m", "m", "Hi").returncode
            == 0
        )
    [conv_id] = _complete(forge, "forge chat --resume c")
    assert conv_id.startswith("c2")
    assert _complete(forge, "forge ask --conversation c") == [conv_id]
