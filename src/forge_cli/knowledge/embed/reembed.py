"""Re-embedding a store: give every chunk a vector of the current embedding model.

Used by ``forge vs reembed`` after the embedding model changed, or for a store made before
embeddings were on (or with an older Forge). Chunks are read, embedded outside any write
transaction, and written in batches, so a long re-embed holds the write lock only briefly and
can be interrupted: what was written stays, and the next run continues with what is missing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from forge_cli.knowledge.db import Database
from forge_cli.knowledge.embed.dense import bump_generation, ensure_model
from forge_cli.knowledge.embed.embedder import Embedder, embed_chunks, embedder_name

__all__ = ["ReembedResult", "reembed"]

_BATCH = 512

ReembedProgress = Callable[[int, int], None]
"""Called with (chunks done, chunks to do) after each batch."""


@dataclass(frozen=True, slots=True)
class ReembedResult:
    """What a re-embed did."""

    model: str
    embedded: int
    """Chunks that got a new vector."""
    total_chunks: int
    seconds: float


def reembed(
    db: Database,
    embedder: Embedder,
    *,
    everything: bool = False,
    progress: ReembedProgress | None = None,
) -> ReembedResult:
    """Embed the chunks that have no vector of ``embedder``'s model (all chunks: ``everything``).

    A chunk holds one vector, so embedding it with the current model replaces a vector of
    another model.
    """
    started = time.perf_counter()
    name = embedder_name(embedder)
    with db.read() as conn:
        total = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        row = conn.execute("SELECT id FROM embedding_models WHERE name = ?", (name,)).fetchone()
        current = int(row[0]) if row is not None else -1
        where = "" if everything else "WHERE e.chunk_id IS NULL OR e.model_id != ?"
        params: tuple[object, ...] = () if everything else (current,)
        todo = [
            int(r[0])
            for r in conn.execute(
                "SELECT c.id FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = c.id "
                f"{where} ORDER BY c.id",
                params,
            )
        ]
    done = 0
    if progress is not None:
        progress(0, len(todo))
    for start in range(0, len(todo), _BATCH):
        ids = todo[start : start + _BATCH]
        marks = ", ".join("?" for _ in ids)
        with db.read() as conn:
            rows = conn.execute(
                f"SELECT id, heading, text, context FROM chunks WHERE id IN ({marks}) ORDER BY id",
                ids,
            ).fetchall()
        dim, vectors = embed_chunks(
            embedder, [(str(h), str(t)) for _, h, t, _ in rows], [str(c) for *_, c in rows]
        )
        with db.write() as conn:
            model = ensure_model(conn, name, dim)
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings (chunk_id, dim, vector, model_id) "
                "SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
                [(int(r[0]), dim, v, model, int(r[0])) for r, v in zip(rows, vectors, strict=True)],
            )
            bump_generation(conn, model)
        done += len(rows)
        if progress is not None:
            progress(done, len(todo))
    return ReembedResult(name, done, total, time.perf_counter() - started)
