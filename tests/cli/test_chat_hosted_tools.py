"""Over Chat Completions the client runs hosted tools itself: a request with file search goes
through the agent loop (the model calls `file_search`, the loop searches the local store), while
a tool-less request streams straight from the server. Also in the chat REPL, where `/tool on
file-search` adds file search (over every local store: no `--vs`) after the session started."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]


def _store(forge: Forge, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sleep.md").write_text("# Sleep\n\nUse time.sleep(seconds) to pause a program.\n")
    made = forge("vs", "create", "notes", str(docs))
    assert made.returncode == 0, made.stderr


def test_ask_runs_file_search_in_the_loop(forge: Forge, tmp_path: Path) -> None:
    _store(forge, tmp_path)
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("file_search", {"query": "pause a program"})]))
        server.add(text_chunks("Call time.sleep."))
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "--model", "m",
            "--vs", "notes", "--json", "How do I pause?",
        )  # fmt: skip
        server.assert_consumed()
        offered = [tool["function"]["name"] for tool in server.requests[0]["tools"]]
        result = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert proc.returncode == 0, proc.stderr
    assert "file_search" in offered
    assert "time.sleep" in result  # the loop searched the local store
    assert json.loads(proc.stdout)["text"] == "Call time.sleep."


def test_chat_repl_runs_file_search_toggled_on_mid_session(forge: Forge, tmp_path: Path) -> None:
    _store(forge, tmp_path)
    with FakeChatServer() as server:
        server.add(text_chunks("Hello."))
        server.add(tool_call_chunks([("file_search", {"query": "pause a program"})]))
        server.add(text_chunks("Call time.sleep."))
        proc = forge(
            "chat", "--api", "chat", "--base-url", server.base_url, "--model", "m",
            input="Hi\n/tool on file-search\nHow do I pause?\n",
        )  # fmt: skip
        server.assert_consumed()
        first_tools = server.requests[0].get("tools")
        result = next(m for m in server.requests[2]["messages"] if m["role"] == "tool")["content"]
    assert proc.returncode == 0, proc.stderr
    assert not first_tools
    assert "time.sleep" in result
    assert "Call time.sleep." in proc.stdout
