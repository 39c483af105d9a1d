"""Bounded BM25 ranking (rarest terms first, windows), scope fallback, embedder failures."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from forge_cli.errors import BackendConnectionError
from forge_cli.knowledge import KnowledgeStore, query_terms
from forge_cli.knowledge.ranking import plan_match


@pytest.fixture
def zoo(store: KnowledgeStore) -> tuple[KnowledgeStore, str]:
    """40 one-chunk files: 'animal' is in all, 'feline' in 8, 'lynx' in 1."""
    vs = store.create_vector_store("zoo")
    files = []
    for i in range(40):
        words = ["animal", f"number{i}"]
        if i % 5 == 0:
            words.append("feline")
        if i == 35:
            words.append("lynx")
        files.append((f"z{i:02}.txt", " ".join(words).encode()))
    store.add_files(files, vector_store_id=vs.id)
    return store, vs.id


def test_small_stores_keep_every_term(zoo: tuple[KnowledgeStore, str]) -> None:
    store, _ = zoo
    with store._db.read() as conn:
        plan = plan_match(conn, query_terms("animal feline lynx"))
    assert plan is not None
    assert set(plan.terms) == {"animal", "feline", "lynx"}
    assert plan.min_rowid == 0


def test_rarest_terms_first_within_the_budget(zoo: tuple[KnowledgeStore, str]) -> None:
    store, _ = zoo
    with store._db.read() as conn:
        plan = plan_match(conn, query_terms("animal feline lynx"), budget=10, window=5)
        assert plan is not None
        assert plan.terms == ("lynx", "feline")  # 1 + 8 rows fit; 'animal' (40) does not
        assert plan.min_rowid == 0
        alone = plan_match(conn, query_terms("animal"), budget=10, window=5)
        assert alone is not None
        assert alone.terms == ("animal",)
        scored = conn.execute(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid >= ?",
            (alone.match, alone.min_rowid),
        ).fetchone()[0]
        assert scored == 5  # only the 5 most recent matches of a hopeless query are scored


def test_common_terms_do_not_hide_the_rare_one(zoo: tuple[KnowledgeStore, str]) -> None:
    store, vs_id = zoo
    hits = store.search([vs_id], "animal lynx", max_num_results=3)
    assert hits[0].filename == "z35.txt"


def test_scope_fallback_finds_a_small_store_behind_a_big_one(store: KnowledgeStore) -> None:
    big = store.create_vector_store("big")
    small = store.create_vector_store("small")
    store.add_files(
        [(f"b{i}.txt", f"heron heron heron {i}".encode()) for i in range(30)],
        vector_store_id=big.id,
    )
    store.add_file(b"a single heron among many words here", "s.txt", vector_store_id=small.id)
    hits = store.search([small.id], "heron", max_num_results=1)
    assert [h.filename for h in hits] == ["s.txt"]


class _FlakyEmbedder:
    """Embeds fine at ingest; fails once ``broken`` is set (an endpoint gone away)."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.broken = False

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self.broken:
            raise self.error
        return [[1.0, float(len(t) % 7)] for t in texts]


@pytest.mark.parametrize(
    "error",
    [BackendConnectionError("cannot reach http://127.0.0.1:9/v1"), RuntimeError("boom")],
)
def test_embedding_failure_falls_back_to_bm25_with_a_note(
    tmp_path: Path, error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    embedder = _FlakyEmbedder(error)
    with KnowledgeStore(tmp_path / "k.db", embedder=embedder) as store:
        vs = store.create_vector_store("dense")
        store.add_file(b"otters hold hands while sleeping", "otter.md", vector_store_id=vs.id)
        store.add_file(b"crows remember faces", "crow.md", vector_store_id=vs.id)
        embedder.broken = True
        notes: list[str] = []
        with caplog.at_level(logging.WARNING, logger="forge_cli.knowledge.search"):
            hits = store.search([vs.id], "otters", notes=notes)
        assert [h.filename for h in hits] == ["otter.md"]
        assert len(notes) == 1
        assert "BM25 alone" in notes[0]
        assert str(error) in notes[0]
        assert "BM25 alone" in caplog.text
        docs = store.list_documents([vs.id], "crows", notes=notes)
        assert [d.filename for d in docs] == ["crow.md"]
        assert len(notes) == 2
        embedder.broken = False
        assert store.search([vs.id], "otters", notes=notes)
        assert len(notes) == 2


def test_search_terms_drop_question_filler_only_in_questions() -> None:
    from forge_cli.knowledge.query import search_terms

    assert search_terms("How can I make my program pause for a few seconds?") == [
        "pause",
        "seconds",
    ]
    assert search_terms("make program exit code") == ["make", "program", "exit", "code"]
    assert search_terms("How do I write code?") == ["write", "code"]  # nothing else: kept
    assert search_terms("") == []
