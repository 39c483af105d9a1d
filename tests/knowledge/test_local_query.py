"""A search without numpy ranks exactly as the numpy path does.

``forge vs search`` on a small store embeds its query in plain Python (``local_query``) and scores
the stored vectors in plain Python (``SmallDenseIndex``), so it never imports numpy, ``tokenizers``
or the tokenizer's JSON. Here both halves are compared with the numpy path: the query vector bit
for bit, the dense order and the whole search's hits on a store of this repository's documents.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from forge_cli.knowledge import KnowledgeStore
from forge_cli.knowledge.embed import dense as dense_module
from forge_cli.knowledge.embed.dense import SmallDenseIndex, model_id
from forge_cli.knowledge.embed.local import LOCAL_MODEL_NAME, LocalEmbedder
from forge_cli.knowledge.local_query import QueryTokenizer

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "docs", ROOT / "README.md"]

QUERIES = [
    "How can I make my program pause for a few seconds?",
    "kettles",
    "Which files differ between two folders",
    "configure an embeddings endpoint for the local engine",
    "naïve café ünïcode 東京 emoji😀",
    "x",
    "the a of",
    "transmogrification antidisestablishmentarianism",
    "retry backoff Retry-After header",
    "resume a saved conversation",
]


def _words() -> list[str]:
    text = " ".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    return sorted(set(re.findall(r"\w+", text)))


def test_query_vectors_match_the_numpy_embedder_bit_for_bit() -> None:
    words = _words()
    queries = [*QUERIES, *(" ".join(words[i : i + 1 + i % 5]) for i in range(0, len(words), 37))]
    fast = LocalEmbedder()
    packed = [fast.embed_one_packed(q) for q in queries]
    rows = LocalEmbedder().embed_array(queries)
    assert all(p is not None for p in packed)
    mismatched = [q for q, p, row in zip(queries, packed, rows, strict=True) if p != row.tobytes()]
    assert mismatched == []


def test_once_numpy_is_in_use_the_batch_path_answers() -> None:
    embedder = LocalEmbedder()
    embedder.embed_array(["warm"])
    assert embedder.embed_one_packed("warm") is None


def test_an_unexpected_tokenizer_file_is_refused(tmp_path: Path) -> None:
    odd = tmp_path / "tokenizer.json"
    odd.write_text(json.dumps({"model": {"type": "WordPiece", "vocab": {"a": 0}}}))
    assert QueryTokenizer.load(odd) is None
    assert QueryTokenizer.load(tmp_path / "missing.json") is None


@pytest.fixture(scope="module")
def docs_store(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeStore:
    path = tmp_path_factory.mktemp("docs") / "k.db"
    store = KnowledgeStore(path, embedder=LocalEmbedder())
    vs = store.create_vector_store("docs")
    report = store.ingest_paths(DOCS, vector_store_id=vs.id)
    assert report.added
    return store


def test_small_index_orders_chunks_as_the_numpy_index(docs_store: KnowledgeStore) -> None:
    embedder = LocalEmbedder()
    with docs_store._db.read() as conn:
        model = model_id(conn, LOCAL_MODEL_NAME)
        assert model is not None
        small = dense_module._load_small(conn, model, 0)
        big = dense_module._load(conn, model, 0)
        files = sorted({str(r[0]) for r in conn.execute("SELECT id FROM files")})
    assert isinstance(small, SmallDenseIndex)
    assert big is not None
    assert small.chunk_ids == [int(c) for c in big.chunk_ids]
    for query in QUERIES:
        vector = embedder.embed_array([query])[0]
        if not vector.any():
            continue  # all scores tie at 0 (a search never asks: see search._dense_ranking)
        packed = vector.tobytes()
        for allowed in (None, set(files[::2])):
            fast = [chunk for chunk, _ in small.top(packed, 40, allowed)]
            slow = [chunk for chunk, _ in big.top(packed, 40, allowed)]
            assert fast == slow, query


def test_search_in_a_fresh_process_matches_the_numpy_search(
    docs_store: KnowledgeStore, tmp_path: Path
) -> None:
    """The whole ``forge vs search`` path (no numpy) against the store searched in this process
    (numpy loaded): the same hits, in the same order, with the same scores."""
    vs = docs_store.list_vector_stores()[0].id
    code = (
        "import json, sys\n"
        "from forge_cli.knowledge import KnowledgeStore\n"
        "from forge_cli.knowledge.embed.local import LocalEmbedder\n"
        "store = KnowledgeStore(sys.argv[1], embedder=LocalEmbedder())\n"
        "out = [[(h.file_id, h.ordinal, h.score) for h in store.search([sys.argv[2]], q,"
        " max_num_results=8)] for q in json.loads(sys.argv[3])]\n"
        "print(json.dumps({'hits': out, 'numpy': 'numpy' in sys.modules}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(docs_store.path), vs, json.dumps(QUERIES)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        timeout=120,
    )
    fresh = json.loads(proc.stdout)
    assert fresh["numpy"] is False
    assert "numpy" in sys.modules
    here = [
        [[h.file_id, h.ordinal, h.score] for h in docs_store.search([vs], q, max_num_results=8)]
        for q in QUERIES
    ]
    assert fresh["hits"] == here
