"""Issue 31: `forge vs sync` keeps a store true to its folders, against the local store and
against `forge serve` over HTTP (where each file's identity rides in its attributes)."""

from __future__ import annotations

import os
import signal
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from forge_cli.backends.knowledge_http import HttpKnowledgeClient
from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.errors import KnowledgeError
from forge_cli.knowledge import KnowledgeStore, ingest
from forge_cli.knowledge.client import KnowledgeClient, LocalKnowledgeClient
from forge_cli.knowledge.migrations import SCHEMA_VERSION
from forge_cli.knowledge.sources import PATH_ATTRIBUTE, SHA_ATTRIBUTE
from forge_cli.knowledge.sync import plan_sync, run_sync, sync_lock

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


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "owls.md").write_text("# Owls\n\nOwls hunt at night and fly silently.\n")
    (docs / "sub" / "bees.md").write_text("# Bees\n\nBees dance to show where flowers are.\n")
    (docs / "moles.txt").write_text("Moles dig tunnels under the lawn.\n")
    return docs


def _key(path: Path) -> str:
    return os.path.abspath(path)


async def _texts(client: KnowledgeClient, store_id: str, query: str) -> list[str]:
    return [hit.text for hit in await client.search(store_id, query, max_num_results=20)]


async def test_added_changed_deleted_and_renamed_files(
    client: KnowledgeClient, folder: Path
) -> None:
    store = await client.create_vector_store("animals")
    first = await run_sync(client, store.id, [folder])
    assert sorted(first.added) == sorted(
        _key(p) for p in (folder / "owls.md", folder / "sub" / "bees.md", folder / "moles.txt")
    )
    assert (first.changed, first.removed, first.failed) == ([], [], [])

    again = await run_sync(client, store.id, [folder])
    assert again.nothing_to_do
    assert again.unchanged == 3
    assert again.summary() == "nothing to do (3 unchanged)"

    (folder / "owls.md").write_text("# Owls\n\nOwls nest in old barns and hollow trees.\n")
    (folder / "sub" / "bees.md").unlink()
    (folder / "moles.txt").rename(folder / "voles.txt")
    report = await run_sync(client, store.id, [folder])
    assert report.added == [_key(folder / "voles.txt")]
    assert report.changed == [_key(folder / "owls.md")]
    assert sorted(report.removed) == sorted(
        [_key(folder / "sub" / "bees.md"), _key(folder / "moles.txt")]
    )
    assert report.unchanged == 0
    assert report.summary() == "added 1, changed 1, removed 2, unchanged 0, failed 0"

    owls = await _texts(client, store.id, "owls")
    assert any("barns" in text for text in owls)
    assert not any("silently" in text for text in owls)  # the stale version is gone
    assert not any("dance" in t for t in await _texts(client, store.id, "bees dance flowers"))
    members = await client.list_vector_store_files(store.id)
    assert sorted(m.source_path or "" for m in members) == sorted(
        [_key(folder / "owls.md"), _key(folder / "voles.txt")]
    )
    assert (await run_sync(client, store.id, [folder])).nothing_to_do


async def test_touched_but_same_content_is_unchanged_and_not_read_again(
    client: KnowledgeClient, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await client.create_vector_store("animals")
    await run_sync(client, store.id, [folder])
    os.utime(folder / "owls.md", ns=(10**18, 10**18))  # touched, same bytes
    report = await run_sync(client, store.id, [folder])
    assert report.nothing_to_do
    assert report.unchanged == 3
    reads: list[Path] = []
    real_read = ingest.read_path

    def counting(path: Path, max_bytes: int, **how: Any) -> bytes:
        reads.append(path)
        return real_read(path, max_bytes, **how)

    monkeypatch.setattr(ingest, "read_path", counting)
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or b"")
    assert (await run_sync(client, store.id, [folder])).nothing_to_do
    assert reads == []  # size and mtime as recorded: no file was opened


async def test_dry_run_and_no_delete_change_nothing_they_should_not(
    client: KnowledgeClient, folder: Path
) -> None:
    store = await client.create_vector_store("animals")
    await run_sync(client, store.id, [folder])
    (folder / "moles.txt").unlink()
    (folder / "owls.md").write_text("Owls again, rewritten.\n")
    os.utime(folder / "sub" / "bees.md", ns=(10**18, 10**18))  # touched only
    (folder / "new.md").write_text("A new note about hedgehogs.\n")
    plan = await plan_sync(client, store.id, [folder], read_changed=True)
    assert plan.add == [_key(folder / "new.md")]
    assert plan.change == [_key(folder / "owls.md")]  # the touched file is read and found equal
    assert plan.remove == [_key(folder / "moles.txt")]
    assert plan.unchanged == 1
    assert len(await client.list_vector_store_files(store.id)) == 3  # nothing changed

    kept = await run_sync(client, store.id, [folder], delete=False)
    assert kept.removed == []
    paths = {m.source_path for m in await client.list_vector_store_files(store.id)}
    assert _key(folder / "moles.txt") in paths
    assert _key(folder / "new.md") in paths


async def test_symlinked_broken_and_unreadable_files(
    client: KnowledgeClient, folder: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("Top secret: do not index.\n")
    (folder / "leak.md").symlink_to(outside)
    (folder / "alias.md").symlink_to(folder / "owls.md")
    (folder / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (folder / "empty.txt").write_text("")
    store = await client.create_vector_store("animals")
    report = await run_sync(client, store.id, [folder])
    failed = dict(report.failed)
    assert "outside the directory" in failed[_key(folder / "leak.md")]
    assert "broken symlink" in failed[_key(folder / "dangling.md")]
    assert "empty" in failed[_key(folder / "empty.txt")]
    assert _key(folder / "alias.md") in report.added  # a link inside the tree is a file of it
    assert not await _texts(client, store.id, "secret")
    if os.geteuid() != 0:  # root reads any file: an unreadable file needs an ordinary user
        os.utime(folder / "moles.txt", ns=(10**18, 10**18))  # so the sync must read it
        (folder / "moles.txt").chmod(0)
        again = await run_sync(client, store.id, [folder])
        assert _key(folder / "moles.txt") in dict(again.failed)
        assert _key(folder / "moles.txt") not in again.removed  # kept: not lost
        (folder / "moles.txt").chmod(0o644)


async def test_a_file_changed_while_the_sync_runs_is_seen_by_the_next_one(
    client: KnowledgeClient, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await client.create_vector_store("animals")
    owls = folder / "owls.md"
    real_read = ingest.read_path
    real_bytes = Path.read_bytes
    edited = False

    def edit_after_read(data: bytes, path: Path) -> bytes:
        nonlocal edited
        if path.name == "owls.md" and not edited:  # the user saves while the sync reads it
            edited = True
            owls.write_text("# Owls\n\nOwls nest in barns now, and the file grew.\n")
        return data

    monkeypatch.setattr(
        ingest, "read_path", lambda p, m, **how: edit_after_read(real_read(p, m, **how), p)
    )
    monkeypatch.setattr(Path, "read_bytes", lambda self: edit_after_read(real_bytes(self), self))
    first = await run_sync(client, store.id, [folder])
    assert _key(owls) in first.added
    monkeypatch.undo()
    second = await run_sync(client, store.id, [folder])
    assert second.changed == [_key(owls)]  # the edit made during the read is not missed
    assert any("barns" in t for t in await _texts(client, store.id, "owls nest"))
    assert (await run_sync(client, store.id, [folder])).nothing_to_do


async def test_ctrl_c_keeps_what_was_synced_and_removes_nothing(
    client: KnowledgeClient, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await client.create_vector_store("animals")
    await run_sync(client, store.id, [folder])
    (folder / "moles.txt").unlink()
    for n in range(4):
        (folder / f"new{n}.md").write_text(f"New note number {n} about badgers.\n")
    calls = 0
    real_read = ingest.read_path

    def interrupting(path: Path, max_bytes: int, **how: Any) -> bytes:
        nonlocal calls
        calls += 1
        if calls == 2:  # the user presses Ctrl+C while the second new file is read
            os.kill(os.getpid(), signal.SIGINT)
        return real_read(path, max_bytes, **how)

    def progress(done: int, total: int, name: str) -> None:
        if done == 2 and isinstance(client, HttpKnowledgeClient):
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(ingest, "read_path", interrupting)
    report = await run_sync(client, store.id, [folder], progress=progress)
    assert report.interrupted
    assert len(report.added) == 2
    assert report.not_started == 2
    assert report.removed == []  # removal waits for a sync that ran to its end
    paths = {m.source_path for m in await client.list_vector_store_files(store.id)}
    assert _key(folder / "moles.txt") in paths
    assert set(report.added) <= paths
    monkeypatch.undo()
    rest = await run_sync(client, store.id, [folder])
    assert len(rest.added) == 2
    assert rest.removed == [_key(folder / "moles.txt")]


async def test_a_second_sync_of_the_store_is_refused_while_one_runs(tmp_path: Path) -> None:
    lock = tmp_path / "sync.lock"
    refused = pytest.raises(KnowledgeError, match="another forge vs sync of notes is running")
    with sync_lock(lock, "notes"), refused, sync_lock(lock, "notes"):
        pass
    with sync_lock(lock, "notes"):  # released: the next sync may run
        pass


async def test_remote_identity_lives_in_the_attributes(tmp_path: Path, folder: Path) -> None:
    with KnowledgeStore(tmp_path / "served.db") as store:
        with BackgroundServer(Engine(store, EngineConfig(seed=False))) as server:
            remote = HttpKnowledgeClient(server.base_url)
            try:
                vs = await remote.create_vector_store("animals")
                await run_sync(remote, vs.id, [folder])
                members = await remote.list_vector_store_files(vs.id)
            finally:
                await remote.aclose()
        served = store.list_vector_store_files(vs.id)
    owls = next(m for m in members if m.filename == "owls.md")
    assert owls.attributes[PATH_ATTRIBUTE] == _key(folder / "owls.md")
    assert len(str(owls.attributes[SHA_ATTRIBUTE])) == 64
    assert owls.source_path == _key(folder / "owls.md")
    # the server needed nothing new: it keeps them as ordinary attributes
    assert {m.attributes[PATH_ATTRIBUTE] for m in served} == {m.source_path for m in members}


def test_replacing_a_file_is_one_transaction(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forge_cli.knowledge import batch

    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("animals")
        store.ingest_paths([folder / "owls.md"], vector_store_id=vs.id, by_path=True)
        (folder / "owls.md").write_text("Owls, second edition.\n")

        def broken(*args: object) -> str | None:
            raise KnowledgeError("killed between the insert and the release")

        monkeypatch.setattr(batch, "set_source", broken)
        report = store.ingest_paths([folder / "owls.md"], vector_store_id=vs.id, by_path=True)
        assert [r.status for r in report.results] == ["rejected"]
        [member] = store.list_vector_store_files(vs.id)
        assert len(store.list_files()) == 1  # the old version, and not the new one beside it
        assert "silently" in store.read_file(member.file_id).text
        monkeypatch.undo()
        report = store.ingest_paths([folder / "owls.md"], vector_store_id=vs.id, by_path=True)
        assert [r.status for r in report.results] == ["replaced"]
        [member] = store.list_vector_store_files(vs.id)
        assert len(store.list_files()) == 1  # the new version only
        assert "second edition" in store.read_file(member.file_id).text


def test_an_old_schema_store_migrates_and_its_files_are_adopted_by_a_sync(
    tmp_path: Path, folder: Path
) -> None:
    path = tmp_path / "old.db"
    with KnowledgeStore(path) as store:
        vs = store.create_vector_store("animals")
        store.ingest_paths([folder], vector_store_id=vs.id)  # files without their paths
    conn = sqlite3.connect(path)  # schema 7 is schema 8 without the sources table
    conn.execute("DROP TABLE sources")
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with KnowledgeStore(path) as store:  # opening migrates
        assert [m.source_path for m in store.list_vector_store_files(vs.id)] == [None] * 3
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    (folder / "owls.md").write_text("Owls, edited after the upgrade.\n")

    async def sync() -> tuple[list[str], list[str], int, int]:
        with KnowledgeStore(path) as store:
            client = LocalKnowledgeClient(store, seed=False)
            report = await run_sync(client, vs.id, [folder])
            members = store.list_vector_store_files(vs.id)
            assert all(m.source_path for m in members)
            return report.added, report.removed, len(members), len(store.list_files())

    added, removed, members, files = anyio.run(sync)
    assert len(added) == 3  # the two unchanged files joined by content, the edited one anew
    assert len(removed) == 1  # the pre-edit owls, which no path holds any more
    assert "owls.md" in removed[0]
    assert (members, files) == (3, 3)  # its chunks and vectors went with it
