"""/conversations lists the newest 20 saved conversations; N or all for more."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation, ConversationStore, Turn
from forge_cli.protocol import Request, Response
from forge_cli.repl import ChatSession

pytestmark = pytest.mark.anyio


async def _never(request: Request) -> Response:  # pragma: no cover - never called
    raise AssertionError("no message should be sent")


def _session(
    tmp_path: Path, conversations: int, unreadable: int
) -> tuple[ChatSession, io.StringIO]:
    store = ConversationStore(tmp_path / "conversations")
    for number in range(conversations):
        conversation = Conversation(id=f"c20260101-{number:08x}")
        conversation.add_turn(Turn(user=f"question {number}"))
        conversation.updated_at = 1_700_000_000 - number
        store.save(conversation)
    for number in range(unreadable):
        (tmp_path / "conversations" / f"c20260102-{number:08x}.json").write_text("{not json")
    out = io.StringIO()
    session = ChatSession(Conversation(), _never, out=out, store=store)  # type: ignore[arg-type]
    return session, out


async def test_the_newest_twenty_then_how_many_more(tmp_path: Path) -> None:
    session, out = _session(tmp_path, 23, 7)
    await session.handle_line("/conversations")
    lines = out.getvalue().splitlines()
    ids = [line.split()[0] for line in lines if line.startswith("  c20260101-")]
    assert ids == [f"c20260101-{n:08x}" for n in range(20)]
    assert len([line for line in lines if line.startswith("  ! skipped")]) == 5
    assert lines[-1] == (
        "... and 3 more conversations and 2 more unreadable files (/conversations all lists "
        "every one, /conversations N the newest N)"
    )

    out.seek(0)
    out.truncate()
    await session.handle_line("/conversations all")
    lines = out.getvalue().splitlines()
    assert len([line for line in lines if line.startswith("  c20260101-")]) == 23
    assert len([line for line in lines if line.startswith("  ! skipped")]) == 7
    assert "more" not in lines[-1]


async def test_a_short_list_has_no_footer_and_a_bad_argument_is_a_usage_line(
    tmp_path: Path,
) -> None:
    session, out = _session(tmp_path, 2, 0)
    await session.handle_line("/conversations 5")
    assert len(out.getvalue().splitlines()) == 2
    for bad in ("0", "-1", "few", "3 4"):
        out.seek(0)
        out.truncate()
        await session.handle_line(f"/conversations {bad}")
        assert out.getvalue() == "error: usage: /conversations [N|all]\n"
