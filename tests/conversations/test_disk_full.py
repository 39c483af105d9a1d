"""Issue 29: a full disk while saving a turn (``forge ask``, the chat) is one line naming the
path and the room needed; the answer is still printed and the chat keeps the turn for /save."""

from __future__ import annotations

import errno
import io
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation, ConversationStore
from forge_cli.conversations import store as store_module
from forge_cli.protocol import Message, OutputText, Response
from forge_cli.repl import ChatSession
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks


class _Disk:
    """The conversation store's writes: full until :meth:`free` is called."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = True
        real = store_module.atomic_write_private

        def write(path: Path, text: str) -> None:
            if self.full:
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            real(path, text)

        monkeypatch.setattr(store_module, "atomic_write_private", write)


def test_ask_prints_the_answer_then_one_line_about_the_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from forge_cli.cli.main import run

    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FORGE_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr("sys.stdin", io.StringIO())  # nothing piped in
    _Disk(monkeypatch)
    with FakeChatServer([text_chunks("The answer is 42.")]) as server:
        code = run(
            ["ask", "--api", "chat", "--base-url", server.base_url, "-m", "m", "--plain", "q"]
        )
    out, err = capsys.readouterr()
    assert "The answer is 42." in out, (code, err)
    assert code == 1
    lines = [line for line in err.splitlines() if line.startswith("forge:")]
    assert len(lines) == 1, err  # besides the token footer, one line
    assert "internal error" not in err
    assert "cannot save the conversation to " + str(tmp_path / "data" / "conversations") in err
    assert "no space left on the device" in err
    assert "needed" in err


async def _answers(request: object):  # type: ignore[no-untyped-def]
    yield Response(
        id="r1", status="completed", output=[Message(id="m", content=[OutputText(text="42.")])]
    )


@pytest.mark.anyio
async def test_chat_keeps_the_turn_when_the_disk_is_full_and_save_retries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = _Disk(monkeypatch)
    out, err = io.StringIO(), io.StringIO()
    store = ConversationStore(tmp_path / "conversations")
    session = ChatSession(Conversation(), _answers, out=out, err=err, store=store)
    await session.handle_line("question")
    assert "42." in out.getvalue()
    assert "no space left on the device" in err.getvalue()
    assert "/save retries" in err.getvalue()
    assert len(session.conversation.turns) == 1
    assert store.list().conversations == []
    disk.full = False
    await session.handle_line("/save")
    (saved,) = store.list().conversations
    assert len(saved.turns) == 1
