"""Issue 14 item 7 (polish): help that offers only what a command uses."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Forge = Callable[..., subprocess.CompletedProcess[str]]


@pytest.mark.parametrize("command", ["models", "doctor"])
def test_backend_only_commands_offer_backend_options_only(forge: Forge, command: str) -> None:
    proc = forge(command, "--help")
    assert proc.returncode == 0
    for option in ("--profile", "--api", "--base-url", "--api-key-env", "--debug"):
        assert option in proc.stdout
    for option in ("--tool", "--vs", "--functions", "--instructions", "--yes", "--store"):
        assert option not in proc.stdout
    refused = forge(command, "-t", "file-search")
    assert refused.returncode == 2


def test_a_tool_the_engine_cannot_run_is_named_not_dropped_silently(forge: Forge) -> None:
    proc = forge("ask", "-t", "code-interpreter", "--json", "Plot x squared")
    assert proc.returncode == 0, proc.stderr
    assert (
        "forge: warning: code-interpreter is not available here "
        "(the built-in engine has no code sandbox); left out"
    ) in proc.stderr


def test_the_chat_refuses_to_turn_on_a_tool_the_engine_cannot_run(forge: Forge) -> None:
    proc = forge("chat", input="/tool on code-interpreter\n/tools\n")
    assert proc.returncode == 0, proc.stderr
    assert "code-interpreter is not available here" in proc.stdout + proc.stderr


def test_list_documents_alone_does_not_claim_there_is_nothing_to_search(forge: Forge) -> None:
    proc = forge("ask", "-t", "list-documents", "--plain", "What documents do you have?")
    assert proc.returncode == 0, proc.stderr
    assert "nothing to search" not in proc.stdout
    assert "the documents are listed below" in proc.stdout
    assert "01-getting-started.md" in proc.stdout


def test_a_documentation_folder_ingest_skips_generated_files_and_summarises(
    forge: Forge, tmp_path: Path
) -> None:
    html = tmp_path / "html"
    (html / "_static").mkdir(parents=True)
    (html / "index.md").write_text("# Python\nThe time module has sleep().\n")
    (html / "searchindex.js").write_text("Search.setIndex({docnames:['index']})\n")
    (html / "_static" / "doctools.js").write_text("var x = 1;\n")
    (html / "logo.png").write_bytes(b"\x89PNG\r\n")
    (html / "broken.md").write_bytes(b"caf\xc3\x28 latin-1 text")
    proc = forge("vs", "create", "pydocs", str(html))
    assert proc.returncode == 0, proc.stderr  # one unreadable page does not fail the ingest
    assert "searchindex.js" not in proc.stderr
    assert "doctools.js" not in proc.stderr
    assert "added 1, rejected 1, skipped 3 (unsupported types, hidden or generated files)" in (
        proc.stderr
    )


def test_retrieval_only_answers_count_the_question_not_the_history(forge: Forge) -> None:
    first = forge("ask", "--json", "How do I enable web search?")
    assert first.returncode == 0, first.stderr
    second = forge("ask", "-c", "--json", "And file search?")
    assert second.returncode == 0, second.stderr
    import json

    tokens = json.loads(second.stdout)["usage"]["input_tokens"]
    assert tokens == max(1, len("And file search?") // 4)  # the history is not sent anywhere
