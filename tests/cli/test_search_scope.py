"""Issue 14 item 3: one truth for the search scope — `--vs` means search those stores, unknown
and ambiguous store names are refused when named, `engine.default_vector_stores` is settable and
is what the built-in engine searches by default, and the chat says what will be searched."""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation
from forge_cli.knowledge.client import LocalKnowledgeClient
from forge_cli.knowledge.store import KnowledgeStore
from forge_cli.repl import ChatSession
from forge_cli.repl.prompt import toolbar_text

Forge = Callable[..., subprocess.CompletedProcess[str]]


def _store(forge: Forge, tmp_path: Path, name: str, text: str) -> str:
    doc = tmp_path / f"{name}.md"
    doc.write_text(text)
    proc = forge("vs", "create", name, str(doc), "--json")
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["vector_store"]["id"])


def test_vs_alone_searches_those_stores(forge: Forge, tmp_path: Path) -> None:
    store = _store(forge, tmp_path, "pets", "Our cat Miso sleeps on the radiator all winter.\n")
    proc = forge("ask", "--vs", "pets", "--json", "Where does Miso sleep?")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    [call] = [item for item in document["items"] if item["type"] == "file_search_call"]
    assert call["status"] == "completed"
    assert any(c.get("filename") == "pets.md" for c in document["citations"]), store


def test_default_vector_stores_is_settable_and_used(forge: Forge, tmp_path: Path) -> None:
    _store(forge, tmp_path, "pets", "Our cat Miso sleeps on the radiator all winter.\n")
    _store(forge, tmp_path, "garden", "The radiator in the shed heats the seedlings.\n")
    assert forge("config", "set", "engine.default_vector_stores", "garden").returncode == 0
    proc = forge("ask", "--json", "Where is the radiator?")
    assert proc.returncode == 0, proc.stderr
    cited = {c.get("filename") for c in json.loads(proc.stdout)["citations"]}
    assert cited == {"garden.md"}


def test_ambiguous_store_names_are_an_error(forge: Forge, tmp_path: Path) -> None:
    """Issue 31: names are unique, so a second `vs create twin` is refused; twins left by an
    older Forge are refused wherever a name is taken (`vs show`, `ask --vs`), never resolved to
    one of them."""
    first = _store(forge, tmp_path, "twin", "one\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "two.md").write_text("two\n")
    again = forge("vs", "create", "twin", str(tmp_path / "b" / "two.md"))
    assert again.returncode == 2
    assert f"a vector store named 'twin' exists already ({first})" in again.stderr
    import sqlite3

    with sqlite3.connect(tmp_path / "data" / "knowledge.db") as conn:  # as an older Forge made
        conn.execute(
            "INSERT INTO vector_stores (id, name, created_at) VALUES ('vs_older_twin', 'twin', 1)"
        )
    for args in (("vs", "show", "twin"), ("ask", "--vs", "twin", "--json", "What is one?")):
        proc = forge(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "2 vector stores are named 'twin'" in proc.stderr
        assert first in proc.stderr
        assert "vs_older_twin" in proc.stderr


@pytest.mark.anyio
async def test_the_chat_refuses_unknown_stores_and_shows_the_default_scope(
    tmp_path: Path,
) -> None:
    store = KnowledgeStore(tmp_path / "k.db")
    client = LocalKnowledgeClient(store)
    out = io.StringIO()

    async def responder(request: object):  # type: ignore[no-untyped-def]  # never asked
        yield None

    session = ChatSession(Conversation(api="local"), responder, out=out, knowledge=client)
    assert "file-search (default)" in toolbar_text(session)
    assert "all stores" in toolbar_text(session)
    await session.handle_line("/vs add nope")
    assert "error: no vector store with id or name 'nope'" in out.getvalue()
    assert session.settings.vector_stores == []
    await session.handle_line("/status")
    assert "the built-in engine runs file-search by default" in out.getvalue()
    store.close()


def test_store_names_are_resolved_to_ids_for_a_remote_server(forge: Forge) -> None:
    from helpers.loopback import LoopbackServer, Reply, sse  # type: ignore[import-not-found]

    item = {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "ok", "annotations": []}]}  # fmt: skip
    store = {"id": "vs_123", "object": "vector_store", "name": "pets", "created_at": 1,
             "status": "completed", "file_counts": {"completed": 1, "total": 1}}  # fmt: skip
    with LoopbackServer() as server:
        server.add(
            Reply.json(404, {"error": {"message": "no such vector store"}}),
            Reply.json(200, {"object": "list", "data": [store], "has_more": False}),
            Reply.sse(
                [
                    sse({"type": "response.created", "response": {"id": "r1"}}),
                    sse({"type": "response.output_item.done", "output_index": 0, "item": item}),
                    sse(
                        {
                            "type": "response.completed",
                            "response": {"id": "r1", "status": "completed", "output": [item]},
                        }
                    ),
                ]
            ),
        )
        proc = forge(
            "ask", "--api", "responses", "--base-url", server.base_url, "-m", "m",
            "--vs", "pets", "--plain", "Where does Miso sleep?",
        )  # fmt: skip
        body = server.requests[-1].json()
    assert proc.returncode == 0, proc.stderr
    [tool] = body["tools"]
    assert tool["type"] == "file_search"
    assert tool["vector_store_ids"] == ["vs_123"]
