"""Benchmark the knowledge store: Markdown ingest throughput and search latency.

Targets (issue 4): ingest >= 5 MB/s of Markdown; search p95 <= 30 ms over 50,000 chunks.
Machines here are shared and noisy, so each figure comes with a baseline measured in the same run
on the same data:

* ingest is measured twice: one ``add_file`` call (one transaction) per document, as an upload
  does, and ``ingest_paths`` over a directory of the same documents, as ``forge vs add DIR``
  does. The baseline indexes the same text in a bare FTS5 table, one transaction per file.
* search runs 200 questions of 1-4 words drawn from the corpus vocabulary: half are words
  picked from a random chunk (so frequent words are frequent in the questions too), half are
  words picked uniformly from the vocabulary. The baseline is a Python substring scan over
  every chunk.

Exit status 1 on a FAIL.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from forge_cli.knowledge import KnowledgeStore

INGEST_TARGET_MB_S = 5.0
SEARCH_P95_TARGET_MS = 30.0
SEARCH_CHUNKS = 50_000
QUERIES = 200
WARMUP_QUERIES = 10
BASELINE_QUERIES = 20

_rng = random.Random(42)
_VOCAB = [
    "".join(_rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(_rng.randint(3, 10)))
    for _ in range(6000)
]
# Zipf-like word frequencies; cumulative weights computed once (``choices`` would redo it per call).
_CUM_WEIGHTS = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(_VOCAB))))


def _words(n: int) -> str:
    return " ".join(_rng.choices(_VOCAB, cum_weights=_CUM_WEIGHTS, k=n))


def _markdown_doc(sections: int) -> str:
    parts = [f"# {_words(4).title()}\n"]
    for s in range(sections):
        parts.append(f"\n## Section {s} {_words(3)}\n")
        for _ in range(3):
            parts.append("\n" + _words(_rng.randint(40, 70)).capitalize() + ".\n")
    return "".join(parts)


def _rate(size: int, seconds: float) -> float:
    return size / (1024 * 1024) / seconds


def bench_ingest(workdir: Path) -> tuple[int, float, float, float]:
    """Bytes ingested and MB/s for add_file, ingest_paths and the plain-SQLite baseline."""
    docs = [_markdown_doc(20).encode() for _ in range(120)]
    total = sum(len(d) for d in docs)
    with KnowledgeStore(workdir / "ingest-files.db") as store:
        vs = store.create_vector_store("bench")
        start = time.perf_counter()
        for i, doc in enumerate(docs):
            store.add_file(doc, f"doc-{i}.md", vector_store_id=vs.id)
        one_by_one = _rate(total, time.perf_counter() - start)
    folder = workdir / "docs"
    folder.mkdir()
    for i, doc in enumerate(docs):
        (folder / f"doc-{i}.md").write_bytes(doc)
    with KnowledgeStore(workdir / "ingest-paths.db") as store:
        vs = store.create_vector_store("bench")
        start = time.perf_counter()
        report = store.ingest_paths([folder], vector_store_id=vs.id)
        batched = _rate(total, time.perf_counter() - start)
        assert len(report.added) == len(docs), report.rejected
    return total, one_by_one, batched, _baseline_ingest(workdir / "plain.db", docs)


def _baseline_ingest(path: Path, docs: list[bytes]) -> float:
    """Bare SQLite FTS5: each document's text into a plain FTS5 table, one transaction each.

    Same tokenizer as the store, but no extraction, chunking, stored copies or membership: the
    indexing floor the real ingest is compared with.
    """
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(
        "CREATE VIRTUAL TABLE docs USING fts5(text, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    start = time.perf_counter()
    for doc in docs:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO docs (text) VALUES (?)", (doc.decode(),))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return _rate(sum(len(d) for d in docs), elapsed)


def build_search_store(workdir: Path) -> tuple[KnowledgeStore, str, list[str]]:
    """A store of >= 50,000 chunks, written by bulk ``add_files`` calls (normally just one)."""
    store = KnowledgeStore(workdir / "search.db")
    vs = store.create_vector_store("search")
    count = made = 0
    while count < SEARCH_CHUNKS:
        wanted = (SEARCH_CHUNKS - count) // 37 + 1  # a 25-section document makes ~37 chunks
        docs = [(f"s-{made + i}.md", _markdown_doc(25).encode()) for i in range(wanted)]
        made += wanted
        report = store.add_files(docs, vector_store_id=vs.id)
        assert not report.rejected, report.rejected[:3]
        count += sum(r.file.chunk_count for r in report.added if r.file is not None)
    with store._db.read() as conn:
        chunk_texts = [row[0] for row in conn.execute("SELECT text FROM chunks")]
    return store, vs.id, chunk_texts


def make_questions(chunk_texts: list[str], count: int) -> list[str]:
    """1-4 word questions: even ones from a random chunk's words, odd ones from the vocabulary."""
    questions = []
    for i in range(count):
        size = _rng.randint(1, 4)
        if i % 2 == 0:
            words = _rng.choice(chunk_texts).lower().replace(".", "").split()
            questions.append(" ".join(_rng.sample(words, size)))
        else:
            questions.append(" ".join(_rng.sample(_VOCAB, size)))
    return questions


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def run_ingest(workdir: Path) -> int:
    size, one_by_one, batched, baseline = bench_ingest(workdir)
    mb = size / (1024 * 1024)
    failures = 0
    for label, rate in (("add_file, one per document", one_by_one), ("ingest_paths", batched)):
        ok = rate >= INGEST_TARGET_MB_S
        failures += not ok
        print(
            f"ingest ({label}): {mb:.1f} MB of Markdown = {rate:.1f} MB/s "
            f"(target >= {INGEST_TARGET_MB_S} MB/s) {_verdict(ok)}"
        )
    print(
        f"baseline (bare FTS5 index of the same text, one transaction per file): "
        f"{baseline:.1f} MB/s; add_file runs at {one_by_one / baseline:.0%} of it, "
        f"ingest_paths at {batched / baseline:.0%}"
    )
    return failures


def run_search(workdir: Path) -> int:
    start = time.perf_counter()
    store, vs_id, texts = build_search_store(workdir)
    print(f"search corpus: {len(texts)} chunks built in {time.perf_counter() - start:.1f} s")
    questions = make_questions(texts, WARMUP_QUERIES + QUERIES)
    warmup, queries = questions[:WARMUP_QUERIES], questions[WARMUP_QUERIES:]
    latencies = []
    with store:
        for query in warmup:
            store.search([vs_id], query)
        for query in queries:
            t0 = time.perf_counter()
            store.search([vs_id], query, max_num_results=10)
            latencies.append((time.perf_counter() - t0) * 1000)
    p50, p95 = statistics.median(latencies), _percentile(latencies, 95)
    ok = p95 <= SEARCH_P95_TARGET_MS
    print(
        f"search: {len(latencies)} queries over {len(texts)} chunks: p50 {p50:.2f} ms, "
        f"p95 {p95:.2f} ms, max {max(latencies):.2f} ms "
        f"(target p95 <= {SEARCH_P95_TARGET_MS} ms) {_verdict(ok)}"
    )
    lowered = [t.lower() for t in texts]
    base = []
    for query in queries[:BASELINE_QUERIES]:
        terms = query.lower().split()
        t0 = time.perf_counter()
        scored = [(sum(t.count(term) for term in terms), i) for i, t in enumerate(lowered)]
        scored.sort(reverse=True)
        base.append((time.perf_counter() - t0) * 1000)
    b50 = statistics.median(base)
    print(
        f"baseline (Python substring scan, same chunks): p50 {b50:.1f} ms; "
        f"FTS5 search is {b50 / p50:.0f}x faster at p50"
    )
    return 0 if ok else 1


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        failures = run_ingest(Path(tmp))
        failures += run_search(Path(tmp))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
