"""Issue 14: `/copy` puts the last answer on the clipboard (a clipboard program, else OSC 52);
`/clear` is saved at once and keeps the previous transcript as its own conversation."""

from __future__ import annotations

import base64
import io
import os
import stat
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation, ConversationStore
from forge_cli.protocol import Message, OutputText, Response
from forge_cli.repl import ChatSession
from forge_cli.repl.clipboard import copy_text

pytestmark = pytest.mark.anyio

ANSWER = "Line one with <angle> and \x1b[31mno escape\x1b[0m.\nLine two."


async def _answers(request: object):  # type: ignore[no-untyped-def]
    yield Response(
        id="r1",
        status="completed",
        output=[Message(id="m", content=[OutputText(text=ANSWER)])],
    )


def _session(tmp_path: Path) -> tuple[ChatSession, io.StringIO, ConversationStore]:
    out = io.StringIO()
    store = ConversationStore(tmp_path / "conversations")
    return ChatSession(Conversation(), _answers, out=out, store=store), out, store


def _fake_program(bin_dir: Path, name: str, sink: Path) -> None:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text(f"#!/bin/sh\ncat > {sink}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_a_clipboard_program_gets_the_text(tmp_path: Path) -> None:
    sink = tmp_path / "clipboard.txt"
    _fake_program(tmp_path / "bin", "xclip", sink)
    terminal = io.StringIO()
    env = {"PATH": str(tmp_path / "bin"), "DISPLAY": ":0"}
    assert copy_text("héllo", terminal, env) == "xclip"
    assert sink.read_text(encoding="utf-8") == "héllo"
    assert terminal.getvalue() == ""


def test_without_a_display_the_x11_program_is_not_used(tmp_path: Path) -> None:
    _fake_program(tmp_path / "bin", "xclip", tmp_path / "never.txt")
    terminal = io.StringIO()
    how = copy_text("abc", terminal, {"PATH": str(tmp_path / "bin")})
    assert how == "terminal (OSC 52)"
    assert not (tmp_path / "never.txt").exists()
    assert terminal.getvalue() == "\x1b]52;c;" + base64.b64encode(b"abc").decode() + "\x07"


def test_osc52_inside_tmux_is_wrapped_for_passthrough(tmp_path: Path) -> None:
    terminal = io.StringIO()
    copy_text("abc", terminal, {"PATH": str(tmp_path), "TMUX": "/tmp/tmux-0/default,1,0"})
    assert terminal.getvalue().startswith("\x1bPtmux;\x1b\x1b]52;c;")
    assert terminal.getvalue().endswith("\x1b\\")


def test_too_long_for_osc52_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="too long"):
        copy_text("x" * 200_000, io.StringIO(), {"PATH": str(tmp_path)})


async def test_copy_command_copies_the_last_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = tmp_path / "clipboard.txt"
    _fake_program(tmp_path / "bin", "wl-copy", sink)
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    session, out, _ = _session(tmp_path)
    await session.handle_line("/copy")
    assert "error: there is no answer to copy yet" in out.getvalue()
    await session.handle_line("question")
    await session.handle_line("/copy")
    assert sink.read_text(encoding="utf-8") == ANSWER  # the text as the model wrote it
    assert "Copied the last answer (2 lines) via wl-copy." in out.getvalue()


async def test_clear_keeps_the_transcript_and_saves_at_once(tmp_path: Path) -> None:
    session, out, store = _session(tmp_path)
    await session.handle_line("question")
    old_id = session.conversation.id
    await session.handle_line("/clear")
    assert session.conversation.id != old_id
    assert session.conversation.turns == []
    assert f"kept as {old_id} (/load {old_id})" in out.getvalue()
    kept = store.load(old_id)
    assert [t.user for t in kept.turns] == ["question"]
    # The cleared chat exists on disk right away, so resuming the latest continues it.
    assert store.load(session.conversation.id).turns == []
    await session.handle_line("/clear")
    assert "Nothing to clear." in out.getvalue()


async def test_export_keeps_an_existing_file_unless_forced(tmp_path: Path) -> None:
    session, out, _ = _session(tmp_path)
    await session.handle_line("question")
    target = tmp_path / "chat.md"
    target.write_text("precious notes\n")
    await session.handle_line(f"/export md {target}")
    assert target.read_text() == "precious notes\n"
    assert f"error: {target} exists (hint: add --force to replace it)" in out.getvalue()
    await session.handle_line(f"/export md {target} --force")
    assert "Line two." in target.read_text()
    fresh = tmp_path / "fresh.json"
    await session.handle_line(f"/export json {fresh}")
    assert fresh.stat().st_mode & 0o777 == 0o600
