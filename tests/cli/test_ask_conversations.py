"""Issue 14 item 6: one-shots are saved and listed like chats; `-c/--continue` and
`--conversation ID` continue them with their history; `--no-save` saves nothing."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]


def _ask(forge: Forge, server: FakeChatServer, *args: str) -> subprocess.CompletedProcess[str]:
    proc = forge("ask", "--api", "chat", "--base-url", server.base_url, "--plain", *args)
    assert proc.returncode == 0, proc.stderr
    return proc


def _saved(tmp_path: Path) -> list[dict[str, object]]:
    folder = tmp_path / "data" / "conversations"
    return (
        [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
        if folder.exists()
        else []
    )


def test_ask_is_saved_and_continued_with_its_history(forge: Forge, tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Paris."))
        server.add(text_chunks("About 2.1 million."))
        server.add(text_chunks("Berlin."))
        _ask(forge, server, "-m", "geo-model", "Capital of France?")
        [saved] = _saved(tmp_path)
        listed = forge("conversations", "list")
        assert saved["id"] in listed.stdout
        _ask(forge, server, "-c", "How many people live there?")
        second = server.requests[1]
        assert second["model"] == "geo-model"  # the continued conversation keeps its model
        assert [m["content"] for m in second["messages"]] == [
            "Capital of France?", "Paris.", "How many people live there?",
        ]  # fmt: skip
        _ask(forge, server, "--conversation", str(saved["id"]), "-m", "other", "And Germany?")
        third = server.requests[2]
        assert third["model"] == "other"  # a flag given again wins
        assert len(third["messages"]) == 5
    [conversation] = _saved(tmp_path)
    turns = conversation["turns"]
    assert isinstance(turns, list)
    assert [turn["user"] for turn in turns] == [
        "Capital of France?", "How many people live there?", "And Germany?",
    ]  # fmt: skip


def test_no_save_leaves_nothing_behind(forge: Forge, tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Secret answer."))
        _ask(forge, server, "-m", "m", "--no-save", "A private question")
    assert _saved(tmp_path) == []


def test_continue_without_any_conversation_is_a_usage_error(forge: Forge) -> None:
    proc = forge("ask", "-c", "hello")
    assert proc.returncode == 2
    assert "no saved conversation to continue" in proc.stderr


def test_a_failed_ask_is_saved_marked_failed(forge: Forge, tmp_path: Path) -> None:
    proc = forge("ask", "--api", "chat", "--base-url", "http://127.0.0.1:9/v1", "-m", "m", "Hi")
    assert proc.returncode == 1
    [conversation] = _saved(tmp_path)
    turns = conversation["turns"]
    assert isinstance(turns, list)
    assert turns[0]["status"] == "failed"
    assert turns[0]["user"] == "Hi"


def test_chat_no_save_is_incognito(forge: Forge, tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Hello there."))
        proc = forge(
            "chat", "--api", "chat", "--base-url", server.base_url, "-m", "m", "--no-save",
            input="hi\n",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Hello there." in proc.stdout
    assert "Saved." not in proc.stdout
    assert _saved(tmp_path) == []


def test_resuming_shows_the_last_exchanges(forge: Forge, tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Paris."))
        _ask(forge, server, "-m", "geo-model", "Capital of France?")
        proc = forge("chat", "--api", "chat", "--base-url", server.base_url, "-c", input="/exit\n")
    assert proc.returncode == 0, proc.stderr
    assert "The last 1 exchange (/history for more):" in proc.stdout
    assert "you> Capital of France?" in proc.stdout
    assert "ai>  Paris." in proc.stdout
