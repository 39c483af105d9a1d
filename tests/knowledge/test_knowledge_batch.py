"""Bulk ingest: one transaction per batch, a savepoint per file, one FTS5 statement per batch."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import forge_cli.knowledge.batch as batch
from forge_cli.errors import KnowledgeError, NotFoundError
from forge_cli.knowledge import KnowledgeStore
from forge_cli.knowledge.ingest import PreparedFile
from forge_cli.knowledge.migrations import migrate


def _index_is_consistent(store: KnowledgeStore) -> None:
    """FTS5's own check that the external-content index matches the chunks table."""
    with store._db.read() as conn:
        conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)")


def test_add_files_reports_in_order_and_indexes(store: KnowledgeStore) -> None:
    vs = store.create_vector_store("bulk")
    files = [
        ("a.md", b"# Alpha\n\nalpha quokka"),
        ("empty.md", b""),
        ("b.md", b"# Beta\n\nbeta wombat"),
        ("again.md", b"# Alpha\n\nalpha quokka"),  # same content as a.md, same batch
        ("c.exe", b"MZ"),
    ]
    calls: list[tuple[int, int, str]] = []
    report = store.add_files(
        files,
        vector_store_id=vs.id,
        attributes={"team": "ops"},
        progress=lambda done, total, name: calls.append((done, total, name)),
    )
    assert [(r.filename, r.status) for r in report.results] == [
        ("a.md", "ok"),
        ("empty.md", "rejected"),
        ("b.md", "ok"),
        ("again.md", "duplicate"),
        ("c.exe", "rejected"),
    ]
    assert calls == [(i, 5, name) for i, (name, _) in enumerate(files, start=1)]
    assert [h.filename for h in store.search([vs.id], "wombat")] == ["b.md"]
    hits = store.search([vs.id], "quokka", filters={"type": "eq", "key": "team", "value": "ops"})
    assert [h.filename for h in hits] == ["a.md"]
    _index_is_consistent(store)


def test_a_file_failing_inside_the_batch_is_rolled_back_alone(
    store: KnowledgeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_insert = batch.insert_prepared

    def flaky(conn: sqlite3.Connection, prepared: PreparedFile, *, index: bool) -> object:
        result = real_insert(conn, prepared, index=index)  # rows written, then the failure
        if prepared.filename == "bad.md":
            raise KnowledgeError("disk on fire")
        return result

    monkeypatch.setattr(batch, "insert_prepared", flaky)
    vs = store.create_vector_store("bulk")
    report = store.add_files(
        [("good.md", b"kiwi one"), ("bad.md", b"kiwi two"), ("fine.md", b"kiwi three")],
        vector_store_id=vs.id,
    )
    assert [r.status for r in report.results] == ["ok", "rejected", "ok"]
    assert report.results[1].reason == "disk on fire"
    assert sorted(f.filename for f in store.list_files()) == ["fine.md", "good.md"]
    assert sorted(h.filename for h in store.search([vs.id], "kiwi")) == ["fine.md", "good.md"]
    _index_is_consistent(store)


def test_batches_split_by_size(store: KnowledgeStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "BATCH_FILES", 2)
    writes = 0
    real_write = store._db.write

    def counting_write() -> object:
        nonlocal writes
        writes += 1
        return real_write()

    monkeypatch.setattr(store._db, "write", counting_write)
    report = store.add_files([(f"n{i}.txt", f"note number {i}".encode()) for i in range(5)])
    assert len(report.added) == 5
    assert writes == 3  # 2 + 2 + 1 files
    _index_is_consistent(store)


def test_unknown_target_store_fails_before_any_work(store: KnowledgeStore) -> None:
    with pytest.raises(NotFoundError):
        store.add_files([("a.md", b"text")], vector_store_id="vs_missing")
    assert store.list_files() == []


def test_deleting_files_keeps_the_index_consistent(store: KnowledgeStore) -> None:
    vs = store.create_vector_store("bulk")
    report = store.add_files(
        [("a.md", b"apple pie"), ("b.md", b"apple tart")], vector_store_id=vs.id
    )
    first = report.results[0].file
    assert first is not None
    store.delete_file(first.id)
    assert [h.filename for h in store.search([vs.id], "apple")] == ["b.md"]
    _index_is_consistent(store)


def test_version_3_store_is_upgraded_to_explicit_indexing(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    raw = sqlite3.connect(path, isolation_level=None)
    assert migrate(raw, target=3) == 3
    raw.execute(  # a chunk written by a version-3 Forge, indexed by its row trigger
        "INSERT INTO files (id, filename, bytes, sha256, mime_type, created_at) "
        "VALUES ('file_x', 'x.md', 12, 'abc', 'text/markdown', 0)"
    )
    raw.execute(
        "INSERT INTO chunks (file_id, ordinal, text, char_start, char_end) "
        "VALUES ('file_x', 0, 'quince jelly', 0, 12)"
    )
    raw.execute("INSERT INTO vector_stores (id, name, created_at) VALUES ('vs_old', 'old', 0)")
    raw.execute(
        "INSERT INTO membership (vector_store_id, file_id, created_at) "
        "VALUES ('vs_old', 'file_x', 0)"
    )
    raw.close()
    with KnowledgeStore(path) as store:
        with store._db.read() as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            assert {r[0] for r in rows if r[0].startswith("chunks_")} == {"chunks_ad"}
        assert [h.filename for h in store.search(["vs_old"], "quince")] == ["x.md"]
        store.add_file(b"# New\n\nquince marmalade", "new.md", vector_store_id="vs_old")
        assert [h.filename for h in store.search(["vs_old"], "marmalade")] == ["new.md"]
        _index_is_consistent(store)
