"""Search: safe queries, normalised scores, snippets, documents, dense fusion, retrieval quality."""

from __future__ import annotations

import json
import math
import re

import pytest
from knowledge_helpers import CORPUS

from forge_cli.errors import KnowledgeError, UsageError
from forge_cli.knowledge import (
    SEED_STORE_NAME,
    KnowledgeStore,
    build_match_query,
    bundled_docs,
    ensure_seed_store,
    reciprocal_rank_fusion,
)


@pytest.fixture
def corpus(store: KnowledgeStore) -> tuple[KnowledgeStore, str]:
    vs = store.create_vector_store("corpus")
    paths = sorted(p for p in CORPUS.iterdir() if p.name != "questions.json")
    report = store.ingest_paths(paths, vector_store_id=vs.id)
    assert report.rejected == []
    return store, vs.id


def test_retrieval_quality_top3(corpus: tuple[KnowledgeStore, str]) -> None:
    store, vs_id = corpus
    questions = json.loads((CORPUS / "questions.json").read_text())
    assert len(questions) >= 30
    assert len({q["file"] for q in questions}) >= 30
    misses = []
    for item in questions:
        names = [h.filename for h in store.search([vs_id], item["question"], max_num_results=3)]
        if item["file"] not in names:
            misses.append((item["question"], names))
    hit_rate = 1 - len(misses) / len(questions)
    assert hit_rate >= 0.9, misses


@pytest.mark.parametrize(
    "query",
    ['"', "AND OR NOT", "NEAR(a b)", "col:umn", "a*b^c", "(((", "-x +y", "' OR 1=1 --", "\x00",
     "🙂 émoji", "{}[]", "x" * 5000],
)  # fmt: skip
def test_hostile_queries_never_fail(corpus: tuple[KnowledgeStore, str], query: str) -> None:
    store, vs_id = corpus
    for hit in store.search([vs_id], query):
        assert 0.0 <= hit.score <= 1.0


def test_match_query_is_quoted() -> None:
    assert build_match_query("How do I enable web-search?") == '"enable"* OR "web" OR "search"*'
    assert build_match_query("configuration") == '"configuration"*'
    assert build_match_query("what is it") == '"what" OR "is" OR "it"'
    assert build_match_query("?!") is None


def test_hits_are_sorted_scored_and_snippeted(corpus: tuple[KnowledgeStore, str]) -> None:
    store, vs_id = corpus
    hits = store.search([vs_id], "chain lubricant rollers", max_num_results=5)
    assert hits[0].filename == "bicycle-chain.md"
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)
    top = hits[0]
    assert re.search("lubric|chain|roller", top.snippet, re.I)
    assert len(top.snippet) <= 250
    assert "\n" not in top.snippet
    doc = store.read_file(top.file_id).text
    assert doc[top.char_start : top.char_end] == top.text
    assert top.vector_store_id == vs_id
    assert top.page is None


def test_threshold_and_limits(corpus: tuple[KnowledgeStore, str]) -> None:
    store, vs_id = corpus
    hits = store.search([vs_id], "water and light", max_num_results=10)
    assert len(hits) >= 3
    cut = hits[1].score
    kept = store.search([vs_id], "water and light", score_threshold=cut)
    assert [h.score for h in kept] == [h.score for h in hits[: len(kept)]]
    assert len(kept) >= 2
    assert all(h.score >= cut for h in kept)
    assert store.search([vs_id], "water light", score_threshold=1.0) == []
    assert len(store.search([vs_id], "the", max_num_results=2)) <= 2
    for bad in ({"max_num_results": 0}, {"max_num_results": 101}, {"score_threshold": 1.5}):
        with pytest.raises(UsageError):
            store.search([vs_id], "tides", **bad)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="no vector store"):
        store.search([], "tides")


def test_search_is_scoped_to_stores(corpus: tuple[KnowledgeStore, str]) -> None:
    store, vs_id = corpus
    other = store.create_vector_store("other")
    store.add_file(b"# Tides\n\nMoon tides in another store", "tides2.md", vector_store_id=other.id)
    assert {h.filename for h in store.search([other.id], "tides moon")} == {"tides2.md"}
    both = {h.filename for h in store.search([vs_id, other.id], "tides moon")}
    assert {"tides2.md", "tides.txt"} <= both


def test_list_documents(corpus: tuple[KnowledgeStore, str]) -> None:
    store, vs_id = corpus
    everything = store.list_documents([vs_id], max_num_results=100)
    assert len(everything) == 32
    assert [d.filename for d in everything] == sorted(d.filename for d in everything)
    ranked = store.list_documents([vs_id], "black hole event horizon", max_num_results=3)
    assert ranked[0].filename == "black-holes.md"
    assert len({d.file_id for d in ranked}) == len(ranked)
    assert ranked[0].summary
    chunks = store.list_documents([vs_id], "the", max_num_results=50, deduplicate=False)
    assert len(chunks) >= len({d.file_id for d in chunks})


class FakeEmbedder:
    """Bag-of-concepts vectors: each text maps onto a few fixed topic axes."""

    AXES = ("moon", "bee", "coffee", "chess", "tea")

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [[float(t.lower().count(a)) + 0.01 for a in self.AXES] for t in texts]


def test_dense_fusion_with_fake_embedder(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    embedder = FakeEmbedder()
    with KnowledgeStore(tmp_path / "k.db", embedder=embedder) as store:
        vs = store.create_vector_store("dense")
        store.add_file(b"Espresso and coffee coffee coffee.", "coffee.md", vector_store_id=vs.id)
        store.add_file(b"The moon moon pulls the tides.", "moon.md", vector_store_id=vs.id)
        store.add_file(b"Foragers dance; bee bee bee.", "bee.md", vector_store_id=vs.id)
        assert embedder.calls == 3
        # No word of the query is in any document: only the dense ranking can find it.
        hits = store.search([vs.id], "bee", max_num_results=3)
        assert hits[0].filename == "bee.md"
        hits = store.search([vs.id], "lunar pull moon", max_num_results=3)
        assert hits[0].filename == "moon.md"
        assert hits[0].score == pytest.approx(1.0)  # first in both rankings
        assert all(0 <= h.score <= 1 for h in hits)


def test_bad_embedder_is_a_knowledge_error(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)

    class Broken:
        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[0.0, 0.0]]

    with KnowledgeStore(tmp_path / "k.db", embedder=Broken()) as store:
        with pytest.raises(KnowledgeError, match="embedder"):
            store.add_file(b"one\n\ntwo", "a.md")
        assert store.list_files() == []


def test_reciprocal_rank_fusion() -> None:
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1]])
    assert fused[1] == pytest.approx(1.0 * (1 / 61 + 1 / 62) / (2 / 61))
    assert max(fused, key=fused.__getitem__) == 1
    assert fused[2] < fused[3]
    assert reciprocal_rank_fusion([]) == {}
    assert math.isclose(reciprocal_rank_fusion([[7]])[7], 1.0)


def test_seed_store_is_idempotent_and_answers(store: KnowledgeStore) -> None:
    assert 5 <= len(bundled_docs()) <= 8
    seeded = ensure_seed_store(store)
    assert seeded.name == SEED_STORE_NAME
    assert seeded.file_counts.total == len(bundled_docs())
    again = ensure_seed_store(store)
    assert again.id == seeded.id
    assert len(store.list_vector_stores()) == 1
    assert len(store.list_files()) == len(bundled_docs())
    hits = store.search([seeded.id], "How do I enable web search?", max_num_results=3)
    assert hits[0].filename == "02-tools.md"
    for question, page in [
        ("What do the exit codes mean?", "05-output-and-exit-codes.md"),
        ("How do I create a vector store from my files?", "03-vector-stores-and-files.md"),
        (
            "How do I connect to a Knowledge Forge server with an API key?",
            "04-backends-and-profiles.md",
        ),
        ("Which slash commands are there?", "06-chat-slash-commands.md"),
    ]:
        assert store.search([seeded.id], question, max_num_results=3)[0].filename == page


def test_seed_store_refreshes_when_docs_change(
    store: KnowledgeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import forge_cli.knowledge.seed as seed

    seeded = ensure_seed_store(store)
    old_files = {m.file_id for m in store.list_vector_store_files(seeded.id)}
    changed = [*bundled_docs()[:-1], ("07-new.md", b"# New page\n\nBrand new content.\n")]
    monkeypatch.setattr(seed, "bundled_docs", lambda: changed)
    refreshed = ensure_seed_store(store)
    assert refreshed.id == seeded.id
    names = sorted(m.filename for m in store.list_vector_store_files(seeded.id))
    assert names == sorted(name for name, _ in changed)
    new_files = {m.file_id for m in store.list_vector_store_files(seeded.id)}
    assert len(old_files - new_files) == 1
    assert len(store.list_files()) == len(changed)  # the dropped page's file is deleted
    assert refreshed.metadata["forge_seed_sha256"] != seeded.metadata["forge_seed_sha256"]
