"""The newest saved conversations are listed reading as few files as possible.

/conversations (the newest 20) and `forge chat -c` / `forge ask -c` (the newest one) read and
parsed every saved conversation: 500 saved conversations were 500 JSON parses. They now read
files newest-modified first and stop once no file left can be newer (docs/conversations.md).
"""

from __future__ import annotations

import io
import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation, ConversationStore, Turn
from forge_cli.protocol import Request, Response
from forge_cli.repl import ChatSession

BASE = 1_750_000_000.0


def _save(store: ConversationStore, number: int, updated: float, modified: float) -> None:
    conversation = Conversation(id=f"c20260101-{number:08x}")
    conversation.add_turn(Turn(user=f"question {number}"))
    conversation.updated_at = updated
    path = store.save(conversation)
    os.utime(path, (modified, modified))


def _counting(store: ConversationStore, monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """How many conversation files ``store`` has parsed since this was called."""
    seen: list[Path] = []
    read = store._read

    def counted(path: Path) -> Conversation:
        seen.append(path)
        return read(path)

    monkeypatch.setattr(store, "_read", counted)
    return lambda: len(seen)


def test_the_newest_twenty_of_500_read_about_twenty_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(tmp_path)
    order = list(range(500))
    random.Random(7).shuffle(order)  # saved in any order; file times follow each save
    for number in order:
        _save(store, number, BASE - 60 * number, BASE - 60 * number + 0.5)
    parsed = _counting(store, monkeypatch)
    listing = store.newest(20)
    assert [c.id for c in listing.conversations[:20]] == [f"c20260101-{n:08x}" for n in range(20)]
    assert parsed() <= 21  # was 500
    assert listing.unread == 500 - parsed()
    assert store.newest(1).conversations[0].id == "c20260101-00000000"
    assert parsed() <= 23


def test_files_whose_times_lie_forward_are_still_listed_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file modified after its conversation (copied, touched) costs a read, never a wrong
    order: the rule only needs a file's time to be no earlier than its updated_at."""
    store = ConversationStore(tmp_path)
    rng = random.Random(11)
    for number in range(200):
        updated = BASE - rng.uniform(0, 10_000)
        _save(store, number, updated, updated + rng.choice([0.0, 0.3, 5.0, 3_000.0]))
    (tmp_path / "broken.json").write_text("{not json")
    os.utime(tmp_path / "broken.json", (BASE + 1, BASE + 1))
    everything = [c.id for c in store.list().conversations]
    for count in (1, 5, 20, 199, 200, 300):
        listing = store.newest(count)
        assert [c.id for c in listing.conversations[:count]] == everything[:count]
        assert [problem.split(":")[0] for problem in listing.problems] == ["skipped broken.json"]
        assert len(listing.conversations) + len(listing.problems) + listing.unread == 201


async def _never(request: Request) -> Response:  # pragma: no cover - never called
    raise AssertionError("no message should be sent")


@pytest.mark.anyio
async def test_the_conversations_command_reads_what_it_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(tmp_path / "conversations")
    for number in range(500):
        _save(store, number, BASE - 60 * number, BASE - 60 * number)
    parsed = _counting(store, monkeypatch)
    out = io.StringIO()
    session = ChatSession(Conversation(), _never, out=out, store=store)  # type: ignore[arg-type]
    await session.handle_line("/conversations")
    lines = out.getvalue().splitlines()
    shown = [line.split()[0] for line in lines if line.startswith("  c20260101-")]
    assert shown == [f"c20260101-{n:08x}" for n in range(20)]
    assert lines[-1].startswith("... and 480 more conversations (/conversations all")
    assert parsed() <= 21
