"""Conversations: atomic saves, tolerant listing, export with citations, request building."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from forge_cli.conversations import (
    Conversation,
    ConversationStore,
    SessionSettings,
    Turn,
    build_request,
    strip_credentials,
    to_json,
    to_markdown,
)
from forge_cli.errors import NotFoundError, UsageError
from forge_cli.protocol import (
    FileCitation,
    FileSearchCall,
    Message,
    OutputText,
    Response,
    UrlCitation,
)


def _answer(text: str = "Answer.", rid: str = "resp_1") -> Response:
    part = OutputText(
        text=text,
        annotations=[
            FileCitation(file_id="f1", filename="guide.md", page=2),
            FileCitation(file_id="f1", filename="guide.md", page=2),
            UrlCitation(url="https://example.org/a", title="Example"),
        ],
    )
    return Response(
        id=rid,
        status="completed",
        output=[
            FileSearchCall(id="fs", status="completed", queries=["q"]),
            Message(id="m", content=[part]),
        ],
    )


def _conversation() -> Conversation:
    conv = Conversation(settings=SessionSettings(tools=["file-search"], vector_stores=["vs_1"]))
    conv.add_turn(Turn.from_response("What is it?", _answer(), status="completed"))
    return conv


def test_save_load_round_trip_is_private(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    conv = _conversation()
    path = store.save(conv)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    loaded = store.load(conv.id)
    assert loaded.settings.tools == ["file-search"]
    assert loaded.turns[0].text == "Answer."
    assert not list(tmp_path.glob("*.tmp"))


def test_listing_skips_corrupt_and_foreign_files(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    store.save(_conversation())
    (tmp_path / "broken.json").write_text('{"format": "forge.conv')
    (tmp_path / "other.json").write_text(json.dumps({"some": "other app"}))
    listing = store.list()
    assert len(listing.conversations) == 1
    assert len(listing.problems) == 2
    assert all(p.startswith("skipped ") for p in listing.problems)


def test_load_by_name_and_prefix_and_errors(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    conv = _conversation()
    conv.name = "my chat"
    store.save(conv)
    assert store.load("my chat").id == conv.id
    assert store.load(conv.id[:12]).id == conv.id
    with pytest.raises(NotFoundError):
        store.load("nothing-like-it")
    with pytest.raises(UsageError):
        store.path_for("../etc/passwd")


def test_markdown_export_numbers_sources_once() -> None:
    text = to_markdown(_conversation())
    assert "## You\n\nWhat is it?" in text
    assert "1. guide.md, p. 2" in text
    assert "2. Example — https://example.org/a" in text
    assert "3." not in text


def test_json_export_round_trips() -> None:
    conv = _conversation()
    assert Conversation.model_validate(json.loads(to_json(conv))).id == conv.id


def test_history_is_resent_without_stored_responses() -> None:
    conv = _conversation()
    conv.add_turn(
        Turn(user="cut short", output=_answer("Part").to_wire()["output"], status="interrupted")
    )
    conv.add_turn(Turn(user="failed", status="failed", error="boom"))
    request = build_request(conv, "next", stores_responses=False, model="m")
    contents = [(m.role, m.content) for m in request.input]  # type: ignore[union-attr]
    assert contents == [
        ("user", "What is it?"),
        ("assistant", "Answer."),
        ("user", "cut short"),
        ("assistant", "Part [interrupted]"),
        ("user", "next"),
    ]
    assert request.previous_response_id is None
    wire = request.to_wire()
    assert wire["tools"] == [{"type": "file_search", "vector_store_ids": ["vs_1"]}]


def test_previous_response_id_when_the_backend_stores() -> None:
    request = build_request(_conversation(), "next", stores_responses=True, model="m")
    assert request.previous_response_id == "resp_1"
    assert len(request.input) == 1  # type: ignore[arg-type]


def test_credentials_are_stripped_from_urls() -> None:
    assert strip_credentials("https://u:p@host/v1") == "https://host/v1"
    assert strip_credentials("http://host") == "http://host"


def test_sources_and_export_use_the_screens_numbering() -> None:
    """In-text markers numbered out of annotation order: /sources, the exported text and the
    screen agree (numbers by first appearance in the text)."""
    from forge_cli.conversations import sources_of
    from forge_cli.conversations.export import cited_text
    from forge_cli.protocol import FileCitation, Message, OutputText, Response

    annotations = [
        FileCitation(file_id="fa", filename="a.pdf", index=1, page=3),
        FileCitation(file_id="fb", filename="b.pdf", index=2, page=5),
    ]
    text = "First claim⟦⟦2⟧⟧. Second claim⟦⟦1⟧⟧."
    message = Message(content=[OutputText(text=text, annotations=annotations)])
    response = Response(id="r", status="completed", output=[message])
    assert cited_text(response) == "First claim[1]. Second claim[2]."
    assert sources_of(response) == [(1, "b.pdf, p. 5"), (2, "a.pdf, p. 3")]
