"""Hybrid retrieval: the ranking functions, vectors tagged by model, re-embedding, and the
embedded model finding what keyword search cannot (on a small committed fixture corpus)."""

from __future__ import annotations

import math
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from forge_cli.errors import KnowledgeError, UsageError
from forge_cli.knowledge import KnowledgeStore
from forge_cli.knowledge.embed.dense import dense_index, model_id
from forge_cli.knowledge.embed.embedder import embed_chunks
from forge_cli.knowledge.embed.local import (
    LOCAL_MODEL_NAME,
    LocalEmbedder,
    local_model_available,
)
from forge_cli.knowledge.migrations import SCHEMA_VERSION, migrate
from forge_cli.knowledge.scoring import (
    TermStats,
    bm25,
    coarse_matrix,
    dense_top,
    diversify,
    document_boost,
    fuse,
    idf,
    ranked,
    term_alignment,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hybrid"


class WordEmbedder:
    """A deterministic toy model: one dimension per topic word it knows."""

    TOPICS = ("moon", "tide", "bread", "yeast", "lamp")

    def __init__(self, name: str = "toy") -> None:
        self.name = name
        self.calls = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [[float(t.lower().count(w)) + 0.01 for w in self.TOPICS] for t in texts]


# -- scoring: storage-independent ranking --------------------------------------------------------


def test_fuse_rewards_agreement_and_respects_weights() -> None:
    fused = fuse([[1, 2, 3], [3, 4]])
    assert ranked(fused)[0][0] == 3  # in both lists beats first in one
    assert all(0.0 <= s <= 1.0 for s in fused.values())
    assert fuse([[7], [7]])[7] == pytest.approx(1.0)
    dense_heavy = fuse([[1], [2]], weights=[1.0, 2.0])
    assert dense_heavy[2] > dense_heavy[1]
    assert fuse([[1], [2]], weights=[0.0, 1.0])[1] == 0.0
    with pytest.raises(ValueError, match="one weight per ranking"):
        fuse([[1]], weights=[1.0, 1.0])
    assert fuse([]) == {}


def test_bm25_matches_fts5() -> None:
    """Our BM25 gives FTS5's scores from the same statistics (so any store can use it)."""
    docs = ["moon moon tide", "tide sea sea sea sea", "moon", "bread yeast flour water"]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", enumerate(docs, 1))
    fts = dict(
        conn.execute("SELECT rowid, -bm25(t) FROM t WHERE t MATCH 'moon OR tide'").fetchall()
    )
    lengths = [len(d.split()) for d in docs]
    avg = sum(lengths) / len(docs)
    df = {w: sum(w in d.split() for d in docs) for w in ("moon", "tide")}
    for rowid, doc in enumerate(docs, 1):
        words = doc.split()
        terms = [TermStats((words.count(w),), df[w]) for w in ("moon", "tide") if w in words]
        if terms:
            assert bm25(terms, [lengths[rowid - 1]], [avg], len(docs)) == pytest.approx(
                fts[rowid], rel=1e-6
            )
    assert idf(3, 4) == pytest.approx(1e-6)  # common terms never score negative
    assert idf(1, 4) == pytest.approx(math.log(3.5 / 1.5))


def test_dense_top_masks_and_coarse_pass_agree() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((25_000, 256)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[123] + 0.05 * rng.standard_normal(256).astype(np.float32)
    query /= np.linalg.norm(query)
    exact = dense_top(matrix, query, 5)
    assert exact[0][0] == 123
    assert [s for _, s in exact] == sorted((s for _, s in exact), reverse=True)
    coarse = coarse_matrix(matrix)
    assert coarse is not None
    assert coarse.shape == (25_000, 64)
    assert dense_top(matrix, query, 5, coarse=coarse)[0] == exact[0]
    mask = np.ones(25_000, dtype=bool)
    mask[123] = False
    assert 123 not in [i for i, _ in dense_top(matrix, query, 5, mask)]
    assert 123 not in [i for i, _ in dense_top(matrix, query, 5, mask, coarse)]
    assert coarse_matrix(matrix[:100]) is None
    assert dense_top(matrix[:0], query, 5) == []


def test_document_boost_favours_pages_with_several_candidates() -> None:
    boosted = document_boost({1: 1.0, 2: 0.9, 3: 0.9}, {1: "a", 2: "b", 3: "b"}, 0.5)
    assert boosted[2] > boosted[1]
    assert document_boost({1: 0.5}, {1: "a"}, 0.0) == {1: 0.5}


def test_diversify_lets_other_documents_in_before_a_documents_fourth_passage() -> None:
    scores = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6), (5, 0.5), (6, 0.4)]
    docs = {1: "a", 2: "a", 3: "a", 4: "a", 5: "b", 6: "c"}
    assert [c for c, _ in diversify(scores, docs, 4)] == [1, 2, 3, 5]
    moved = diversify(scores, docs, 6)
    assert [c for c, _ in moved] == [1, 2, 3, 5, 6, 4]
    assert [s for _, s in moved] == [0.9, 0.8, 0.7, 0.5, 0.4, 0.4]  # still in descending order
    assert diversify(scores, docs, 6, per_document=1)[:3] == [(1, 0.9), (5, 0.5), (6, 0.4)]
    assert diversify(scores, {}, 3) == scores[:3]  # unmapped candidates stay where they are
    assert diversify(scores[:3], docs, 10) == scores[:3]
    assert diversify(scores, docs, 0) == []


# -- the store: vectors tagged by model ----------------------------------------------------------


def test_migration_5_tags_old_vectors_as_unknown_model(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    assert migrate(conn, target=4) == 4
    conn.execute(
        "INSERT INTO files (id, filename, bytes, sha256, mime_type, created_at) "
        "VALUES ('f', 'a.md', 1, 'x', 'text/markdown', 0)"
    )
    conn.execute(
        "INSERT INTO chunks (id, file_id, ordinal, text, char_start, char_end) "
        "VALUES (1, 'f', 0, 'moon', 0, 4)"
    )
    conn.execute("INSERT INTO embeddings VALUES (1, 2, x'0000803f0000803f')")
    assert migrate(conn) == SCHEMA_VERSION
    assert conn.execute("SELECT model_id FROM embeddings").fetchall() == [(0,)]
    assert conn.execute("SELECT count(*) FROM embedding_models").fetchone() == (0,)
    conn.close()


def test_ingest_stores_vectors_under_the_model_name(tmp_path: Path) -> None:
    toy = WordEmbedder()
    with KnowledgeStore(tmp_path / "k.db", embedder=toy) as store:
        vs = store.create_vector_store("s").id
        store.add_file(b"# Moon\n\nThe moon pulls the tide.", "moon.md", vector_store_id=vs)
        store.add_file(b"# Bread\n\nYeast makes bread rise.", "bread.md", vector_store_id=vs)
        with store._db.read() as conn:
            rows = conn.execute(
                "SELECT m.name, m.dim, count(*) FROM embeddings e "
                "JOIN embedding_models m ON m.id = e.model_id GROUP BY m.name"
            ).fetchall()
        assert rows == [("toy", 5, 2)]
        assert store.search([vs], "lunar tide")[0].filename == "moon.md"


def test_a_model_with_another_dimension_is_refused(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db", embedder=WordEmbedder()) as store:
        store.add_file(b"moon", "a.md")

    class Wider(WordEmbedder):
        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[*v, 1.0] for v in super().embed(texts)]

    with (
        KnowledgeStore(tmp_path / "k.db", embedder=Wider("toy")) as store,
        pytest.raises(KnowledgeError, match="6-dimension"),
    ):
        store.add_file(b"tide", "b.md")


def test_search_ignores_vectors_of_another_model(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db", embedder=WordEmbedder("old")) as store:
        vs = store.create_vector_store("s").id
        store.add_file(b"The moon pulls the tide.", "moon.md", vector_store_id=vs)
    other = WordEmbedder("new")
    with KnowledgeStore(tmp_path / "k.db", embedder=other) as store:
        hits = store.search([vs], "lunar")
        assert hits == []  # no keyword match, and no "new" vectors to compare with
        assert other.calls == 0  # the model is not even asked to embed the query


def test_reembed_fills_missing_vectors_and_replaces_other_models(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:  # keyword-only: no vectors at all
        vs = store.create_vector_store("s").id
        store.add_file(b"# Moon\n\nThe moon pulls the tide.", "moon.md", vector_store_id=vs)
        store.add_file(b"# Bread\n\nYeast makes bread rise.", "bread.md", vector_store_id=vs)
        with pytest.raises(UsageError, match="no embedding model"):
            store.reembed()
    toy = WordEmbedder()
    with KnowledgeStore(tmp_path / "k.db", embedder=toy) as store:
        assert store.search([vs], "lunar") == []
        progress: list[tuple[int, int]] = []
        result = store.reembed(progress=lambda done, total: progress.append((done, total)))
        assert (result.model, result.embedded, result.total_chunks) == ("toy", 2, 2)
        assert progress[0] == (0, 2)
        assert progress[-1] == (2, 2)
        assert store.search([vs], "lunar moon")[0].filename == "moon.md"
        assert store.reembed().embedded == 0  # nothing left to do
        assert store.reembed(everything=True).embedded == 2
    with KnowledgeStore(tmp_path / "k.db", embedder=WordEmbedder("other")) as store:
        assert store.reembed().embedded == 2  # "toy" vectors are replaced
        with store._db.read() as conn:
            names = conn.execute(
                "SELECT DISTINCT m.name FROM embeddings e JOIN embedding_models m "
                "ON m.id = e.model_id"
            ).fetchall()
        assert names == [("other",)]


def test_in_memory_vectors_reload_when_the_store_changes(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db", embedder=WordEmbedder()) as store:
        gone = store.add_file(b"The moon.", "a.md").file
        assert gone is not None
        with store._db.read() as conn:
            model = model_id(conn, "toy")
            assert model is not None
            first = dense_index(conn, model)
            assert dense_index(conn, model) is first  # cached
        store.add_file(b"The tide.", "b.md")
        store.reembed(everything=True)
        with store._db.read() as conn:
            second = dense_index(conn, model)
        assert second is not first
        assert second is not None
        assert len(second.chunk_ids) == 2
        store.delete_file(gone.id)  # a cascade delete is a change too
        with store._db.read() as conn:
            third = dense_index(conn, model)
        assert third is not None
        assert len(third.chunk_ids) == 1


# -- the embedded model on a committed fixture corpus ---------------------------------------------


@pytest.fixture(scope="module")
def fixture_store(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeStore:
    path = tmp_path_factory.mktemp("hybrid") / "k.db"
    store = KnowledgeStore(path, embedder=LocalEmbedder())
    vs = store.create_vector_store("fixtures")
    report = store.ingest_paths([FIXTURES], vector_store_id=vs.id)
    assert len(report.added) == 5, report
    return store


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("How do I wait a bit before continuing?", "sleeping.md"),
        ("How do I unzip a downloaded bundle?", "archives.md"),
        ("How do I email someone from code?", "mail.md"),
    ],
)
def test_hybrid_finds_paraphrases_keyword_search_misses(
    fixture_store: KnowledgeStore, question: str, page: str
) -> None:
    vs = fixture_store.list_vector_stores()[0].id
    embedder = fixture_store.embedder
    try:
        fixture_store.embedder = None
        keyword = [h.filename for h in fixture_store.search([vs], question, max_num_results=3)]
    finally:
        fixture_store.embedder = embedder
    hybrid = [h.filename for h in fixture_store.search([vs], question, max_num_results=3)]
    assert page not in keyword
    assert hybrid[0] == page


def test_local_embedder_is_offline_unit_length_and_deterministic() -> None:
    embedder = LocalEmbedder()
    assert embedder.name == LOCAL_MODEL_NAME
    first = embedder.embed_array(["The moon pulls the tide.", "", "the of and"])
    assert first.shape == (3, 256)
    assert np.linalg.norm(first[0]) == pytest.approx(1.0, rel=1e-5)
    assert not first[1].any()
    assert not first[2].any()
    again = LocalEmbedder().embed(["The moon pulls the tide."])
    assert np.allclose(again[0], first[0], atol=1e-6)


_HEAVY = "['numpy', 'tokenizers', 'wordllama', 'safetensors']"


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["vs", "--help"]])
def test_version_and_help_load_no_model(args: list[str]) -> None:
    code = (
        "import sys\nfrom forge_cli.cli.main import run\n"
        f"try:\n    run({args!r})\nexcept SystemExit:\n    pass\n"
        f"print([m for m in {_HEAVY} if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_keyword_only_store_search_loads_no_model(tmp_path: Path) -> None:
    """A store without vectors is searched by keyword, and the default model is never loaded."""
    path = tmp_path / "k.db"
    with KnowledgeStore(path) as store:
        vs = store.create_vector_store("s").id
        store.add_file(b"# Sleep\n\nsleep() suspends the thread.", "sleep.md", vector_store_id=vs)
    code = (
        "import sys\nfrom forge_cli.engine import open_store\n"
        f"store = open_store({str(path)!r})\n"
        "assert store.embedder is not None\n"
        f"print([h.filename for h in store.search([{vs!r}], 'sleep')])\n"
        f"print([m for m in {_HEAVY} if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines() == ["['sleep.md']", "[]"]


def test_dense_candidates_stay_within_the_searched_stores_and_filters(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db", embedder=WordEmbedder()) as store:
        lunar = store.create_vector_store("lunar").id
        kitchen = store.create_vector_store("kitchen").id
        store.add_file(b"The moon pulls the tide.", "moon.md", vector_store_id=lunar)
        store.add_file(
            b"Yeast and bread.", "bread.md", vector_store_id=kitchen, attributes={"kind": "a"}
        )
        store.add_file(
            b"Bread with yeast.", "loaf.md", vector_store_id=kitchen, attributes={"kind": "b"}
        )
        # "yeasty" matches no keyword: every hit comes from the dense side, which always has a
        # nearest neighbour, but only among the searched stores' (filtered) files.
        assert [h.filename for h in store.search([lunar], "yeasty")] == ["moon.md"]
        found = {h.filename for h in store.search([kitchen], "yeasty")}
        assert found == {"bread.md", "loaf.md"}
        filtered = store.search(
            [kitchen], "yeasty", filters={"type": "eq", "key": "kind", "value": "b"}
        )
        assert [h.filename for h in filtered] == ["loaf.md"]


# -- document context: every chunk carries its page's lead ---------------------------------------

_LONG_PAGE = "# Tides\n\nThe lunar calendar and its effect on the sea.\n\n" + "".join(
    f"## Section {n}\n\n" + "Water rises and falls along the coast. " * 30 + "\n\n"
    for n in range(4)
)


def test_a_long_page_does_not_fill_every_result(tmp_path: Path) -> None:
    # Every chunk of the long page matches "lunar" (through its lead), and by score alone its
    # passages would fill the four results; the other page is listed before its fourth.
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("s").id
        store.add_file(_LONG_PAGE.encode(), "tides.md", vector_store_id=vs)
        notes = "# Notes\n\n" + "Errands and shopping for the week. " * 20 + "A lunar calendar."
        store.add_file(notes.encode(), "notes.md", vector_store_id=vs)
        hits = store.search([vs], "lunar", max_num_results=4)
        assert sorted(h.filename for h in hits) == ["notes.md"] + ["tides.md"] * 3
        assert hits[0].filename == "tides.md"
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert len({h.text for h in store.search([vs], "lunar", max_num_results=10)}) > 4


def test_keyword_search_finds_a_deep_chunk_by_its_page_lead(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("s").id
        store.add_file(_LONG_PAGE.encode(), "tides.md", vector_store_id=vs)
        store.add_file(
            b"# Bread\n\nYeast makes bread rise overnight.", "bread.md", vector_store_id=vs
        )
        hits = store.search([vs], "lunar", max_num_results=10)
        assert len(hits) > 2  # every chunk of the page matches through its lead
        assert any("lunar" not in h.text for h in hits)
        assert {h.filename for h in hits} == {"tides.md"}
        assert all(h.heading is None or "lunar" not in h.heading for h in hits)  # not shown
        file_id = hits[0].file_id
        store.delete_file(file_id)
        assert store.search([vs], "lunar") == []
        with store._db.write() as conn:  # the delete trigger removed the lead from the index too
            conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")


def test_migration_6_gives_old_chunks_their_document_lead(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    assert migrate(conn, target=5) == 5
    conn.execute(
        "INSERT INTO files (id, filename, bytes, sha256, mime_type, created_at) "
        "VALUES ('f', 'a.md', 1, 'x', 'text/markdown', 0)"
    )
    text = "# Moon\n\nThe moon pulls the tide.\n\n## Later\n\nWater rises."
    conn.execute("INSERT INTO file_texts VALUES ('f', ?)", (text,))
    conn.execute(
        "INSERT INTO chunks (id, file_id, ordinal, heading, text, char_start, char_end) "
        "VALUES (1, 'f', 0, 'Moon > Later', 'Water rises.', 0, 12)"
    )
    conn.execute(
        "INSERT INTO chunks_fts (rowid, heading, text) VALUES (1, 'Moon > Later', 'Water rises.')"
    )
    assert migrate(conn) == SCHEMA_VERSION
    assert conn.execute("SELECT context FROM chunks").fetchall() == [
        ("The moon pulls the tide. Water rises.",)
    ]
    found = conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'tide'").fetchall()
    assert found == [(1,)]
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
    conn.close()


def test_migration_7_relabels_chunks_after_a_rest_api_description(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    text = (
        "Title\n=====\n\n" + "Opening words of the page. " * 40 + "\n\n"
        ".. function:: rmtree(path)\n\n   " + "Delete an entire directory tree. " * 40 + "\n"
    )
    with KnowledgeStore(db) as store:
        vs = store.create_vector_store("s").id
        store.add_file(text.encode(), "shutil.rst", vector_store_id=vs)
        store.add_file(b"# Notes\n\nNothing to relabel here.", "notes.md", vector_store_id=vs)
    conn = sqlite3.connect(db, isolation_level=None)
    now = conn.execute("SELECT id, heading FROM chunks ORDER BY id").fetchall()
    assert now[-2][1] == "Title > rmtree(path)"  # the page's last chunk (then notes.md)
    for chunk_id, heading, chunk, context in conn.execute(  # as schema 6 stored them
        "SELECT id, heading, text, context FROM chunks WHERE heading LIKE '%rmtree%'"
    ).fetchall():
        conn.execute(
            "INSERT INTO chunks_fts(chunks_fts, rowid, heading, text, context) "
            "VALUES ('delete', ?, ?, ?, ?)",
            (chunk_id, heading, chunk, context),
        )
        conn.execute("UPDATE chunks SET heading = 'Title' WHERE id = ?", (chunk_id,))
        conn.execute(
            "INSERT INTO chunks_fts(rowid, heading, text, context) VALUES (?, 'Title', ?, ?)",
            (chunk_id, chunk, context),
        )
    conn.execute("UPDATE chunks SET char_end = char_end - 1 WHERE id = ?", (now[-2][0],))
    conn.execute("PRAGMA user_version = 6")
    assert migrate(conn) == SCHEMA_VERSION
    after = dict(conn.execute("SELECT id, heading FROM chunks").fetchall())
    assert {k: v for k, v in after.items() if k != now[-2][0]} == {
        k: v for k, v in now if k != now[-2][0]
    }
    assert after[now[-2][0]] == "Title"  # its span no longer matches: left as it was
    found = conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'heading:rmtree'")
    assert {r[0] for r in found} == {k for k, v in after.items() if "rmtree" in v}
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
    conn.close()


def test_embed_chunks_gives_each_chunk_its_lead() -> None:
    seen: list[str] = []

    class Recorder:
        name = "rec"

        def embed(self, texts: list[str]) -> list[list[float]]:
            seen.extend(texts)
            return [[1.0, float(len(t))] for t in texts]

    embed_chunks(Recorder(), [("H", "text one"), ("", "text two")], ["Lead.", ""])
    assert seen == ["Lead.\n\nH\n\ntext one", "text two"]
    seen.clear()  # markup names are left out of what is embedded (roles, directives)
    embed_chunks(Recorder(), [(":mod:`os` --- OS", "Call :func:`getenv`.")], ["The :mod:`os`."])
    assert seen == ["The  `os`.\n\n `os` --- OS\n\nCall  `getenv`."]
    with pytest.raises(ValueError, match="one context per chunk"):
        embed_chunks(Recorder(), [("H", "t")], [])


@pytest.mark.skipif(not local_model_available(), reason="wordllama is not installed")
def test_the_lead_moves_a_chunk_towards_its_page_topic() -> None:
    embedder = LocalEmbedder()
    chunk = [("Functions", "Return the value of the counter after adding one.")]
    query = np.asarray(embedder.embed_array(["sleep pause seconds"])[0])
    plain = np.frombuffer(embed_chunks(embedder, chunk)[1][0], dtype=np.float32)
    lead = ["Suspend execution: sleep and pause for a number of seconds."]
    contextual = np.frombuffer(embed_chunks(embedder, chunk, lead)[1][0], dtype=np.float32)
    assert float(contextual @ query) > float(plain @ query) + 0.1


# -- term alignment ------------------------------------------------------------------------------


def test_term_alignment_rewards_covering_every_term_with_close_words() -> None:
    words = np.eye(5, dtype=np.float32)[:4]  # four unrelated words
    near = np.asarray([0.9, 0.0, 0.0, 0.2, 0.0], dtype=np.float32)  # close to word 0
    near[4] = math.sqrt(1 - 0.81 - 0.04)  # and loosely (0.2, under the floor) to word 3
    terms = np.stack([near, np.eye(5, dtype=np.float32)[2]])
    scores = term_alignment(terms, [1.0, 1.0], words, [[0, 2], [0], [1, 3], []])
    assert scores[0] > scores[1] > scores[2] == 0.0  # both terms > one term > only loose matches
    assert scores[3] == 0.0
    assert scores[0] == pytest.approx((0.9**2 + 1.0) / 2, abs=1e-6)
    rare_first = term_alignment(terms, [1.0, 3.0], words, [[0], [2]])
    assert rare_first[1] > rare_first[0]  # the term with the larger weight (IDF) counts more
    assert term_alignment(terms[:0], [], words, [[0]]) == [0.0]
