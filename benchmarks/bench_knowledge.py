"""Benchmark the knowledge store: Markdown ingest throughput and search latency.

Targets (issue 4): ingest >= 5 MB/s of Markdown; search p95 <= 30 ms over 50,000 chunks.
Machines here are shared and noisy, so the run also measures a naive baseline on the same data
(a Python substring scan over every chunk) and prints the ratio. Exit status 1 on a FAIL.
"""

from __future__ import annotations

import random
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
BASELINE_QUERIES = 20

_rng = random.Random(42)
_VOCAB = [
    "".join(_rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(_rng.randint(3, 10)))
    for _ in range(6000)
]
_WEIGHTS = [1.0 / (rank + 1) for rank in range(len(_VOCAB))]  # Zipf-like word frequencies


def _words(n: int) -> str:
    return " ".join(_rng.choices(_VOCAB, weights=_WEIGHTS, k=n))


def _markdown_doc(sections: int) -> str:
    parts = [f"# {_words(4).title()}\n"]
    for s in range(sections):
        parts.append(f"\n## Section {s} {_words(3)}\n")
        for _ in range(3):
            parts.append("\n" + _words(_rng.randint(40, 70)).capitalize() + ".\n")
    return "".join(parts)


def bench_ingest(workdir: Path) -> tuple[float, float]:
    docs = [_markdown_doc(20).encode() for _ in range(120)]
    total = sum(len(d) for d in docs)
    with KnowledgeStore(workdir / "ingest.db") as store:
        vs = store.create_vector_store("bench")
        start = time.perf_counter()
        for i, doc in enumerate(docs):
            store.add_file(doc, f"doc-{i}.md", vector_store_id=vs.id)
        elapsed = time.perf_counter() - start
    return total / (1024 * 1024), elapsed


def build_search_store(workdir: Path) -> tuple[KnowledgeStore, str, list[str]]:
    store = KnowledgeStore(workdir / "search.db")
    vs = store.create_vector_store("search")
    count = i = 0
    while count < SEARCH_CHUNKS:
        for _ in range(20):
            store.add_file(_markdown_doc(25).encode(), f"s-{i}.md", vector_store_id=vs.id)
            i += 1
        with store._db.read() as conn:
            count = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    with store._db.read() as conn:
        chunk_texts = [row[0] for row in conn.execute("SELECT text FROM chunks")]
    return store, vs.id, chunk_texts


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def main() -> int:
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        mb, seconds = bench_ingest(workdir)
        rate = mb / seconds
        ok = rate >= INGEST_TARGET_MB_S
        failures += not ok
        print(
            f"ingest: {mb:.1f} MB of Markdown in {seconds:.2f} s = {rate:.1f} MB/s "
            f"(target >= {INGEST_TARGET_MB_S} MB/s) {'PASS' if ok else 'FAIL'}"
        )

        start = time.perf_counter()
        store, vs_id, texts = build_search_store(workdir)
        print(f"search corpus: {len(texts)} chunks built in {time.perf_counter() - start:.1f} s")
        queries = [_words(_rng.randint(2, 6)) for _ in range(QUERIES)]
        latencies = []
        with store:
            for query in queries[:10]:  # warm the page cache
                store.search([vs_id], query)
            for query in queries:
                t0 = time.perf_counter()
                store.search([vs_id], query, max_num_results=10)
                latencies.append((time.perf_counter() - t0) * 1000)
        p50, p95 = statistics.median(latencies), _percentile(latencies, 95)
        ok = p95 <= SEARCH_P95_TARGET_MS
        failures += not ok
        print(
            f"search: {len(latencies)} queries over {len(texts)} chunks: p50 {p50:.2f} ms, "
            f"p95 {p95:.2f} ms (target p95 <= {SEARCH_P95_TARGET_MS} ms) "
            f"{'PASS' if ok else 'FAIL'}"
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
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
