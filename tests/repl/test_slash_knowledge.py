"""/upload, /docs and /search in the chat session, through the one knowledge seam.

The session talks to a :class:`forge_cli.knowledge.LocalKnowledgeClient` over a real local store,
so the seam's helpers (ids or names, documents of the active stores, hits sorted by score) are
tested where they are used.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation
from forge_cli.errors import KnowledgeError
from forge_cli.knowledge import FileRecord, IngestResult, KnowledgeStore, LocalKnowledgeClient
from forge_cli.protocol import Request, Response
from forge_cli.repl import ChatSession, ProgressLine, result_line

pytestmark = pytest.mark.anyio


class TtyOut(io.StringIO):
    """A StringIO that says it is a terminal."""

    def isatty(self) -> bool:
        return True


async def _never(request: Request) -> AsyncIterator[Response]:
    nothing: list[Response] = []
    for snapshot in nothing:
        yield snapshot
    raise AssertionError("no message should be sent")


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ports.md").write_text("# Ports\n\nThe zebra service listens on port 4242.\n")
    (folder / "walrus.txt").write_text("The walrus index is rebuilt every night.\n")
    (folder / "blob.txt").write_bytes(b"\x00\x00")
    return folder


@pytest.fixture
def client(tmp_path: Path) -> Iterator[LocalKnowledgeClient]:
    store = KnowledgeStore(tmp_path / "k.db")
    yield LocalKnowledgeClient(store, seed=False)
    store.close()


def _session(client: LocalKnowledgeClient | None, out: io.StringIO) -> ChatSession:
    return ChatSession(Conversation(), _never, out=out, knowledge=client)


async def test_upload_docs_and_search_through_the_seam(
    client: LocalKnowledgeClient, docs: Path
) -> None:
    await client.create_vector_store("team")
    out = TtyOut()
    session = _session(client, out)

    assert await session.handle_line(f"/upload {docs} --vs team")
    text = out.getvalue()
    assert "\r\x1b[2K" in text
    assert "3/3" in text
    assert "rejected   -  blob.txt: " in text
    assert "Uploaded 2 of 3 file(s) into team." in text

    out.seek(0)
    out.truncate()
    assert await session.handle_line("/docs")
    assert "No documents." not in out.getvalue()  # no active store: every document
    await session.handle_line("/vs use team")  # by name, as /vs use accepts
    out.seek(0)
    out.truncate()
    assert await session.handle_line("/docs")
    listed = out.getvalue()
    assert "ports.md" in listed
    assert "walrus.txt" in listed
    assert "blob.txt" not in listed

    out.seek(0)
    out.truncate()
    assert await session.handle_line("/search walrus index")
    found = out.getvalue().splitlines()
    assert found[0].startswith("[1] walrus.txt (")
    assert found[1].startswith("    The walrus index is rebuilt every night")  # under the title


async def test_search_without_an_active_store_is_an_error_line(
    client: LocalKnowledgeClient,
) -> None:
    out = io.StringIO()
    session = _session(client, out)
    assert await session.handle_line("/search anything")
    assert "error: no active vector store" in out.getvalue()
    out.seek(0)
    out.truncate()
    assert await session.handle_line("/search")
    assert "usage: /search QUERY" in out.getvalue()


async def test_upload_into_the_active_store_and_bad_paths(
    client: LocalKnowledgeClient, docs: Path, tmp_path: Path
) -> None:
    store = await client.create_vector_store("team")
    out = io.StringIO()
    session = _session(client, out)
    await session.handle_line(f"/vs use {store.id}")
    assert await session.handle_line(f"/upload {docs / 'ports.md'}")
    text = out.getvalue()
    assert "\x1b" not in text  # not a terminal: no progress bar
    assert f"Uploaded 1 of 1 file(s) into {store.id}." in text
    assert [m.filename for m in await client.list_vector_store_files(store.id)] == ["ports.md"]
    await session.handle_line(f"/upload {tmp_path / 'missing.md'}")
    assert "error: no such file or directory" in out.getvalue()
    await session.handle_line("/upload --vs")
    assert "usage: /upload PATH... [--vs ID]" in out.getvalue()
    await session.handle_line(f"/upload {docs / 'ports.md'} --vs nope")
    assert "error: no vector store with id or name 'nope'" in out.getvalue()


async def test_knowledge_commands_without_a_store() -> None:
    out = io.StringIO()
    session = _session(None, out)
    for line in ("/docs", "/search x", "/upload ."):
        assert await session.handle_line(line)
    assert out.getvalue().count("error: this backend offers no document store") == 3


def test_progress_line_draws_only_on_a_terminal() -> None:
    piped = io.StringIO()
    with ProgressLine(piped) as progress:
        progress(1, 2, "a.md")
    assert piped.getvalue() == ""

    tty = TtyOut()
    with ProgressLine(tty, ascii_only=True) as progress:
        progress(1, 2, "evil\x1b]52;c;x\x07.md")
    drawn = tty.getvalue()
    assert drawn.startswith("\r\x1b[2K" + "#" * 12 + "-" * 12 + " 1/2  evil\\x1b]52")
    assert "\x07" not in drawn
    assert drawn.endswith("\r\x1b[2K")

    dumb = TtyOut()
    ProgressLine(dumb, env={"TERM": "dumb"})(1, 1, "a.md")
    assert dumb.getvalue() == ""


def test_result_line_formats_each_status() -> None:
    record = FileRecord(
        id="file_1", filename="a.md", bytes=1, sha256="0", mime_type="text/markdown", created_at=0
    )
    assert (
        result_line(IngestResult(filename="a.md", status="ok", file=record))
        == "ok         file_1  a.md"
    )
    assert (
        result_line(IngestResult(filename="b.bin", status="rejected", reason="binary\ncontent"))
        == "rejected   -  b.bin: binary content"
    )


async def test_upload_without_a_store_goes_to_uploads_and_activates_it(
    client: LocalKnowledgeClient, docs: Path
) -> None:
    """A file in no vector store could never be searched: /upload puts it somewhere searchable."""
    out = io.StringIO()
    session = _session(client, out)
    assert await session.handle_line(f"/upload {docs / 'walrus.txt'}")
    [uploads] = [vs for vs in await client.list_vector_stores() if vs.name == "uploads"]
    assert session.settings.vector_stores == [uploads.id]
    assert f"into {uploads.id}" in out.getvalue()
    out.seek(0)
    out.truncate()
    assert await session.handle_line("/search walrus index")
    assert out.getvalue().startswith("[1] walrus.txt (")
    # A second upload reuses the same store.
    assert await session.handle_line(f"/upload {docs / 'ports.md'}")
    assert [vs.name for vs in await client.list_vector_stores()].count("uploads") == 1


async def test_a_client_given_an_opener_opens_the_store_on_first_use(tmp_path: Path) -> None:
    opened: list[KnowledgeStore] = []

    def open_store() -> KnowledgeStore:
        opened.append(KnowledgeStore(tmp_path / "lazy.db"))
        return opened[-1]

    lazy = LocalKnowledgeClient(open_store, seed=False)
    session = _session(lazy, io.StringIO())
    assert await session.handle_line("/help")
    assert opened == []  # a session that never touches its documents never opens them
    assert await lazy.list_vector_stores() == []
    assert len(opened) == 1
    await lazy.aclose()  # the client opened the store, so it closes it
    with pytest.raises(KnowledgeError, match="closed database"):
        opened[0].list_vector_stores()


async def test_vs_list_marks_a_store_made_active_by_name(client: LocalKnowledgeClient) -> None:
    """``forge chat --vs team`` keeps the name it was given: /vs list marked only stores whose id
    was active, so the active store had no ``*`` next to it."""
    team = await client.create_vector_store("team")
    await client.create_vector_store("other")
    out = io.StringIO()
    conversation = Conversation()
    conversation.settings.vector_stores = ["team"]
    session = ChatSession(conversation, _never, out=out, knowledge=client)
    assert await session.handle_line("/vs list")
    [marked] = [line for line in out.getvalue().splitlines() if line.startswith(" * ")]
    assert marked.startswith(f" * {team.id}  team")


async def test_vs_remove_by_id_a_store_made_active_by_name(client: LocalKnowledgeClient) -> None:
    """``/vs remove ID`` (the id /vs list shows) left a store made active by name in place."""
    team = await client.create_vector_store("team")
    out = io.StringIO()
    conversation = Conversation()
    conversation.settings.vector_stores = ["team"]
    session = ChatSession(conversation, _never, out=out, knowledge=client)
    assert await session.handle_line(f"/vs remove {team.id}")
    assert session.settings.vector_stores == []
    conversation.settings.vector_stores = [team.id]
    assert await session.handle_line("/vs remove team")
    assert session.settings.vector_stores == []
    conversation.settings.vector_stores = ["gone-store"]  # deleted since: still removable
    assert await session.handle_line("/vs remove gone-store")
    assert session.settings.vector_stores == []
