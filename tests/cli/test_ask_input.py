"""Issue 14 item 5: piped stdin and a question are combined, `-f` attaches files, and the
output modes are exclusive."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]


def _ask(forge: Forge, server: FakeChatServer, *args: str, input: str = "") -> str:
    proc = forge(
        "ask", "--api", "chat", "--base-url", server.base_url, "--model", "m", "--plain", *args,
        input=input,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return str(server.requests[-1]["messages"][-1]["content"])


def test_piped_text_is_added_to_the_question(forge: Forge) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("A summary."))
        sent = _ask(forge, server, "Summarize this", input="# Notes\n\nThe build is green.\n")
    assert sent == (
        'Summarize this\n\n<document name="stdin">\n# Notes\n\nThe build is green.\n</document>'
    )


def test_piped_text_alone_is_the_question(forge: Forge) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("4"))
        assert _ask(forge, server, input="What is 2 + 2?\n") == "What is 2 + 2?"


def test_files_are_attached_in_order(forge: Forge, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("Deploy on Fridays.\n")
    page = tmp_path / "page.html"
    page.write_text("<html><body><h1>Policy</h1><p>Never deploy on Fridays.</p></body></html>")
    with FakeChatServer() as server:
        server.add(text_chunks("They disagree."))
        sent = _ask(forge, server, "-f", str(notes), "--file", str(page), "Do these agree?")
    assert sent.startswith('Do these agree?\n\n<document name="notes.md">\nDeploy on Fridays.\n')
    assert '<document name="page.html">' in sent
    assert "Never deploy on Fridays." in sent
    assert "<p>" not in sent


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--json", "--jsonl", "q"], "choose one output mode: --json or --jsonl"),
        (["-f", "/nonexistent/x.md", "q"], "cannot attach /nonexistent/x.md"),
    ],
)
def test_bad_input_is_one_line_exit_2(forge: Forge, args: list[str], message: str) -> None:
    proc = forge("ask", *args)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert message in proc.stderr


def test_too_much_piped_text_is_refused(forge: Forge) -> None:
    proc = forge("ask", "Summarize", input="x" * 400_001)
    assert proc.returncode == 2
    assert "standard input is over 400,000 characters" in proc.stderr
    assert "forge vs create" in proc.stderr


def test_a_binary_file_is_refused(forge: Forge, tmp_path: Path) -> None:
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02")
    proc = forge("ask", "-f", str(blob), "What is this?")
    assert proc.returncode == 2
    assert "cannot attach" in proc.stderr
    assert "binary" in proc.stderr


def test_a_size_reads_the_same_in_ask_and_in_vs_create(forge: Forge, tmp_path: Path) -> None:
    """A 209,715,164-byte file was "209.7 MB" in `forge ask -f` (decimal) but "200.0 MB" in
    `forge vs create` (binary): every size is now in the binary units the limits use."""
    big = tmp_path / "big.md"
    with big.open("wb") as handle:
        handle.truncate(209_715_164)  # sparse: neither command reads it
    asked = forge("ask", "-f", str(big), "what is in it?")
    created = forge("vs", "create", "notes", str(big))
    assert asked.returncode == 2
    assert "cannot attach" in asked.stderr
    assert "200.0 MiB is too large" in asked.stderr
    assert "big.md: too large (200.0 MiB; the limit is 50 MiB)" in created.stdout + created.stderr
    assert "MB" not in asked.stderr + created.stdout + created.stderr


def test_sizes_are_in_binary_units() -> None:
    from forge_cli.limits import describe_bytes

    assert describe_bytes(100) == "100 bytes"
    assert describe_bytes(64 * 1024) == "64 KiB"
    assert describe_bytes(1536) == "1.5 KiB"
    assert describe_bytes(16 * 1024 * 1024) == "16 MiB"
    assert describe_bytes(209_715_164) == "200.0 MiB"
    assert describe_bytes(3 * 1024**3) == "3 GiB"
