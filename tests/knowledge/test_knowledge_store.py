"""Vector store and file CRUD, unknown ids, migrations, error mapping, public surface."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import forge_cli.knowledge as knowledge
from forge_cli.errors import KnowledgeError, NotFoundError, UsageError
from forge_cli.knowledge import KnowledgeStore, default_store_path
from forge_cli.knowledge.migrations import MIGRATIONS, SCHEMA_VERSION, migrate


def test_public_surface_is_pinned() -> None:
    assert sorted(knowledge.__all__) == sorted(
        [
            "DATA_DIR_ENV", "DEFAULT_MAX_FILE_BYTES", "SCHEMA_VERSION", "SEED_STORE_NAME",
            "SUPPORTED_EXTENSIONS", "AttributeValue", "Attributes", "BatchReport", "ChunkSpec",
            "DocumentHit", "Embedder", "FileCounts", "FileRecord", "FileRejected", "FileText",
            "IngestResult", "IngestStatus", "KnowledgeClient", "KnowledgeStore",
            "LocalKnowledgeClient", "Page", "ProgressCallback", "SearchHit", "VectorStore",
            "VectorStoreFile", "attach_file", "build_match_query", "bundled_docs", "chunk_text",
            "default_store_path", "ensure_seed_store", "ensure_vector_store", "expand_paths",
            "extract_text", "list_documents", "parse_filter", "query_terms",
            "reciprocal_rank_fusion", "resolve_vector_store", "search_stores",
        ]
    )  # fmt: skip
    for name in knowledge.__all__:
        assert hasattr(knowledge, name), name


def test_vector_store_crud(store: KnowledgeStore) -> None:
    vs = store.create_vector_store("notes", description="my notes", metadata={"team": "a"})
    assert vs.id.startswith("vs_")
    assert (vs.name, vs.description, vs.metadata) == ("notes", "my notes", {"team": "a"})
    assert vs.file_counts.total == 0
    assert store.get_vector_store(vs.id) == vs
    assert [v.id for v in store.list_vector_stores()] == [vs.id]
    updated = store.update_vector_store(vs.id, name="renamed", metadata={"team": "b"})
    assert (updated.name, updated.description, updated.metadata) == (
        "renamed",
        "my notes",
        {"team": "b"},
    )
    assert store.find_vector_store("renamed") == updated
    assert store.find_vector_store("notes") is None
    store.delete_vector_store(vs.id)
    assert store.list_vector_stores() == []
    with pytest.raises(NotFoundError, match=vs.id):
        store.get_vector_store(vs.id)


def test_file_crud_and_membership(store: KnowledgeStore) -> None:
    vs = store.create_vector_store("docs")
    result = store.add_file(
        b"# Hello\n\nSome text here.\n",
        "hello.md",
        vector_store_id=vs.id,
        attributes={"lang": "en"},
    )
    assert result.status == "ok"
    assert result.file is not None
    file = result.file
    assert file.id.startswith("file_")
    assert (file.filename, file.bytes, file.mime_type, file.chunk_count) == (
        "hello.md",
        25,
        "text/markdown",
        1,
    )
    assert store.get_file(file.id) == file
    assert store.get_file_content(file.id) == b"# Hello\n\nSome text here.\n"
    assert store.read_file(file.id).text == "# Hello\n\nSome text here.\n"
    members = store.list_vector_store_files(vs.id)
    assert [(m.file_id, m.attributes) for m in members] == [(file.id, {"lang": "en"})]
    assert store.get_vector_store(vs.id).file_counts.completed == 1
    assert store.get_vector_store(vs.id).usage_bytes == 25

    other = store.create_vector_store("other", file_ids=[file.id])
    assert store.get_vector_store(other.id).file_counts.total == 1
    store.attach_file(other.id, file.id, attributes={"lang": "de"})
    assert store.get_vector_store_file(other.id, file.id).attributes == {"lang": "de"}

    store.detach_file(vs.id, file.id)
    assert store.list_vector_store_files(vs.id) == []
    assert store.get_file(file.id) == file  # detaching keeps the file

    store.delete_file(file.id)
    assert store.list_files() == []
    assert store.list_vector_store_files(other.id) == []
    with sqlite3.connect(store.path) as raw:  # the FTS index follows the cascade
        assert raw.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
        hits = raw.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'hello'")
        assert hits.fetchone()[0] == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.get_vector_store("vs_missing"),
        lambda s: s.update_vector_store("vs_missing", name="x"),
        lambda s: s.delete_vector_store("vs_missing"),
        lambda s: s.get_file("file_missing"),
        lambda s: s.get_file_content("file_missing"),
        lambda s: s.delete_file("file_missing"),
        lambda s: s.read_file("file_missing"),
        lambda s: s.list_vector_store_files("vs_missing"),
        lambda s: s.search(["vs_missing"], "anything"),
        lambda s: s.list_documents(["vs_missing"]),
        lambda s: s.add_file(b"text", "a.txt", vector_store_id="vs_missing"),
        lambda s: s.ingest_paths([], vector_store_id="vs_missing"),
    ],
)
def test_unknown_ids_raise_not_found(store: KnowledgeStore, call: object) -> None:
    assert callable(call)
    with pytest.raises(NotFoundError, match="_missing"):
        call(store)
    assert store.list_files() == []


def test_attach_unknown_file_leaves_store_unchanged(store: KnowledgeStore) -> None:
    with pytest.raises(NotFoundError, match="file_nope"):
        store.create_vector_store("x", file_ids=["file_nope"])
    assert store.list_vector_stores() == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": ""}, "name"),
        ({"name": "x", "metadata": {"k": 1}}, "metadata"),
    ],
)
def test_bad_vector_store_input(
    store: KnowledgeStore, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        store.create_vector_store(**kwargs)  # type: ignore[arg-type]
    assert store.list_vector_stores() == []


def test_schema_pragmas(store: KnowledgeStore) -> None:
    with sqlite3.connect(store.path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    with store._db.read() as conn:
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_migrations_upgrade_an_old_store(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, target=1) == 1
    conn.execute("INSERT INTO vector_stores (id, name, created_at) VALUES ('vs_old', 'kept', 1)")
    conn.close()
    with KnowledgeStore(path) as st:
        assert st.get_vector_store("vs_old").name == "kept"
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert raw.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    with pytest.raises(KnowledgeError, match="newer"):
        KnowledgeStore(path)


def test_foreign_file_is_a_knowledge_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(KnowledgeError, match="not a Forge knowledge store"):
        KnowledgeStore(path)


def test_default_store_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    assert default_store_path() == tmp_path / "data" / "knowledge.db"
    monkeypatch.delenv("FORGE_DATA_DIR")
    path = default_store_path()
    assert path.name == "knowledge.db"
    assert "forge" in str(path.parent).lower()
