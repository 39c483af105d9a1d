"""The same knowledge-client scenario against the local store and against `forge serve`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from forge_cli.backends.knowledge_http import HttpKnowledgeClient
from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.errors import NotFoundError, UsageError
from forge_cli.knowledge import KnowledgeStore
from forge_cli.knowledge.client import (
    KnowledgeClient,
    LocalKnowledgeClient,
    attach_file,
    ensure_vector_store,
    list_documents,
    resolve_vector_store,
    search_stores,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["local", "http"])
async def client(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KnowledgeClient]:
    with KnowledgeStore(tmp_path / "k.db") as store:
        if request.param == "local":
            yield LocalKnowledgeClient(store, seed=False)
            return
        with BackgroundServer(Engine(store, EngineConfig(seed=False)), token="tok") as server:
            remote = HttpKnowledgeClient(server.base_url, api_key="tok")
            try:
                yield remote
            finally:
                await remote.aclose()


async def test_knowledge_commands_behave_the_same(client: KnowledgeClient, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "owls.md").write_text("# Owls\n\nOwls hunt at night and fly silently.")
    (docs / "bees.md").write_text("# Bees\n\nBees dance to show where the flowers are.")
    (docs / "empty.txt").write_text("")
    vs = await client.create_vector_store("animals", description="notes")
    seen: list[str] = []
    report = await client.upload_files(
        [docs], vector_store_id=vs.id, progress=lambda done, total, name: seen.append(name)
    )
    assert len(report.added) == 2
    assert len(report.rejected) == 1
    assert "empty" in (report.rejected[0].reason or "")
    assert sorted(seen) == ["bees.md", "empty.txt", "owls.md"]
    assert (await resolve_vector_store(client, "animals")).id == vs.id
    assert (await client.get_vector_store(vs.id)).file_counts.total == 2
    hits = await client.search(vs.id, "where do bees dance")
    assert hits[0].filename == "bees.md"
    assert "dance" in hits[0].text
    members = await client.list_vector_store_files(vs.id)
    owl = next(m for m in members if m.filename == "owls.md")
    await client.remove_file(vs.id, owl.file_id)
    assert len(await client.list_vector_store_files(vs.id)) == 1
    await client.add_file(vs.id, owl.file_id, attributes={"kind": "bird"})
    assert await client.search(
        vs.id, "owls", filters={"type": "eq", "key": "kind", "value": "bird"}
    )
    assert {f.filename for f in await client.list_files()} == {"owls.md", "bees.md"}
    assert (await client.get_file(owl.file_id)).filename == "owls.md"
    await client.delete_file(owl.file_id)
    renamed = await client.update_vector_store(vs.id, name="fauna")
    assert renamed.name == "fauna"
    await client.delete_vector_store(vs.id)
    assert [s.id for s in await client.list_vector_stores()] == []
    with pytest.raises(NotFoundError):
        await client.get_vector_store(vs.id)
    with pytest.raises(NotFoundError):
        await resolve_vector_store(client, "nothing")


async def test_the_seam_helpers_behave_the_same(client: KnowledgeClient, tmp_path: Path) -> None:
    """Names or ids, merged multi-store search, store creation and attaching, local or remote."""
    (tmp_path / "owls.md").write_text("# Owls\n\nOwls hunt at night and fly silently at night.")
    (tmp_path / "bats.md").write_text("# Bats\n\nBats hunt insects at night by echolocation.")
    birds = await ensure_vector_store(client, "birds")
    assert (await ensure_vector_store(client, "birds")).id == birds.id  # found, not created twice
    mammals = await client.create_vector_store("mammals")
    await client.upload_files([tmp_path / "owls.md"], vector_store_id=birds.id)
    report = await client.upload_files([tmp_path / "bats.md"])
    [bat] = report.added
    assert bat.file is not None

    attached = await attach_file(client, mammals.id, bat.file.id)
    assert (attached.status, attached.file) == ("ok", bat.file)
    missing = await attach_file(client, mammals.id, "file_missing")
    assert (missing.status, missing.filename) == ("rejected", "file_missing")

    hits = await search_stores(client, ["birds", mammals.id], "hunt at night")
    assert {h.filename for h in hits} == {"owls.md", "bats.md"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len(await search_stores(client, ["birds", "mammals"], "night", max_num_results=1)) == 1
    with pytest.raises(UsageError, match="no active vector store"):
        await search_stores(client, [], "night")

    assert {d.filename for d in await list_documents(client, ["mammals"])} == {"bats.md"}
    assert {d.filename for d in await list_documents(client, [])} == {"owls.md", "bats.md"}
